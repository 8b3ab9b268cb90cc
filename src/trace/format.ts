import { canonicalJson } from "../canonical/index.js";
import type { RunEvent, Usage } from "../contracts/index.js";

function clip(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function json(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch {
    return String(value);
  }
}

/** One line describing what an event says, for people. */
export function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case "run.started":
      return `agent ${event.agent.name}, model ${event.model.provider}/${event.model.model}${event.parent ? `, child of ${event.parent.runId} (${event.parent.callId})` : ""}`;
    case "message":
      return `user: ${clip(event.content)}`;
    case "llm.started":
      return `step ${event.step}${event.attempt > 1 ? ` attempt ${event.attempt}` : ""}: ${event.request.messages.length} message(s), ${event.request.tools.length} tool(s), key ${event.requestKey.slice(0, 12)}`;
    case "llm.finished": {
      const { response } = event;
      const calls = response.toolCalls.map((call) => call.name).join(", ");
      const said = response.text ? ` "${clip(response.text, 80)}"` : "";
      const cost = event.cost === null ? "" : `, $${event.cost.toFixed(6)}`;
      return `step ${event.step} → ${response.stopReason}${calls ? ` [${calls}]` : ""}${said} (${response.usage ? `${response.usage.inputTokens} in / ${response.usage.outputTokens} out` : "usage unknown"}${cost})`;
    }
    case "llm.failed":
      return `step ${event.step} attempt ${event.attempt} failed: ${event.error.kind}: ${clip(event.error.message)}${event.retryInMs === null ? " (giving up)" : ` (retry in ${event.retryInMs} ms)`}`;
    case "llm.interrupted":
      return `step ${event.step} attempt ${event.attempt} interrupted: the process stopped during the call (the provider may have received it)`;
    case "tool.requested":
      return `${event.name}(${event.rawArgs !== undefined ? clip(event.rawArgs, 80) : clip(json(event.args), 80)}) ${event.callId}`;
    case "tool.started":
      return `${event.name} ${event.callId}`;
    case "tool.finished":
      return `${event.name} ${event.callId} → ${clip(typeof event.result === "string" ? event.result : json(event.result))}`;
    case "tool.failed":
      return `${event.name} ${event.callId} ✗ ${event.error.kind}: ${clip(event.error.message)}`;
    case "tool.blocked":
      return `${event.name} ${event.callId} ⛔ ${event.reason}: ${clip(event.detail)}`;
    case "tool.unknown_outcome":
      return `${event.name} ${event.callId} ? ${clip(event.detail)}`;
    case "tool.decided":
      return `${event.name} ${event.callId}: ${event.decision === "rerun" ? "run again" : "not run again (outcome unknown)"}${event.by ? ` by ${event.by}` : ""}`;
    case "retrieval":
      return `${event.mode === "augment" ? `augment (turn ${event.turn ?? "?"})` : (event.tool ?? "?")} "${clip(event.query, 60)}" → ${event.chunks.map((chunk) => chunk.id).join(", ") || "(nothing)"}`;
    case "guardrail":
      return `${event.direction} ${event.action} by ${event.rule}: ${clip(event.detail)}`;
    case "approval.requested":
      return `${event.tool} ${event.callId} needs ${event.roles.join(" + ") || "approval"}`;
    case "approval.granted":
      return `${event.callId} approved${event.role ? ` as ${event.role}` : ""}${event.by ? ` by ${event.by}` : ""}`;
    case "approval.denied":
      return `${event.callId} denied${event.role ? ` as ${event.role}` : ""}: ${clip(event.reason)}`;
    case "approval.expired":
      return `${event.callId}: ${clip(event.detail)}`;
    case "run.paused":
      return `${event.reason}: ${event.pending.map((item) => `${item.tool} ${item.callId}`).join(", ")}${event.childRunId ? ` (child ${event.childRunId})` : ""}`;
    case "run.resumed":
      return "";
    case "run.finished":
      return `${event.status}${event.error ? ` (${event.error.code}: ${clip(event.error.message)})` : ""}; ${event.steps} step(s), ${tokensText(event.usage)} tokens${event.usage.unknownCalls ? ` (usage unknown for ${event.usage.unknownCalls} call(s))` : ""}${event.cost === null ? "" : `, $${event.cost.toFixed(6)}`}${event.output ? `: "${clip(event.output, 80)}"` : ""}`;
  }
}

/** A token total for people: a lower bound (≥) or "unknown" when some calls reported no usage. */
export function tokensText(usage: Usage): string {
  const total = usage.inputTokens + usage.outputTokens;
  if (!usage.unknownCalls) return String(total);
  return total === 0 ? "unknown" : `≥${total}`;
}

/** A readable timeline of a run: seq, time since start, type and what happened. */
export function formatTrace(events: readonly RunEvent[]): string {
  const first = events[0];
  if (!first) return "(no events)\n";
  const start = Date.parse(first.at);
  const width = String(events[events.length - 1]?.seq ?? 1).length;
  const lines = [`run ${first.runId}`];
  for (const event of events) {
    const offset = ((Date.parse(event.at) - start) / 1000).toFixed(3);
    lines.push(`  ${String(event.seq).padStart(width)}  +${offset}s  ${event.type.padEnd(19)} ${describeEvent(event)}`.trimEnd());
  }
  return `${lines.join("\n")}\n`;
}
