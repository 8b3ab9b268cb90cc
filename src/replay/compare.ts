import type { EventOf, RunEvent, RunStore } from "../contracts/index.js";
import { createHash } from "node:crypto";
import { canonicalJson } from "../canonical/index.js";
import { linesOfType, linesOfTypes, runFamily, type RunLines } from "../bundle/index.js";

export interface FamilyLog {
  runs: RunLines[];
  /** sha256 of the family's events.jsonl, as a bundle of it would hold. */
  sha256: string;
  events: number;
}

export function familyLog(store: RunStore, runId: string): FamilyLog {
  const runs = store.lastSeq(runId) > 0 ? runFamily(store, runId) : [];
  // Hashed line by line: the whole events.jsonl is never built as one string to learn its digest.
  const hash = createHash("sha256");
  for (const run of runs) for (const line of run.lines) hash.update(line).update("\n");
  return { runs, sha256: hash.digest("hex"), events: runs.reduce((sum, run) => sum + run.lines.length, 0) };
}

interface Placed {
  runId: string;
  line: string;
  seq: number;
}

/**
 * The family's events in causal order: each run's events, with a child run's events right
 * after the `tool.started` of the call that started it. A child that diverged is then found
 * before the parent's call result that differs because of it.
 */
function interleave(runs: readonly RunLines[], rename: (line: string) => string): Placed[] {
  const byParentCall = new Map<string, RunLines>();
  for (const run of runs) if (run.run.parent) byParentCall.set(`${run.run.parent.runId}\u0000${run.run.parent.callId}`, run);
  const out: Placed[] = [];
  const visit = (run: RunLines): void => {
    const starts = new Map(linesOfType(run.lines, "tool.started").map(({ index, event }) => [index, event]));
    run.lines.forEach((line, index) => {
      out.push({ runId: run.run.runId, line: rename(line), seq: index + 1 });
      const event = starts.get(index);
      if (event?.type !== "tool.started") return;
      const key = `${run.run.runId}\u0000${event.callId}`;
      const child = byParentCall.get(key);
      if (child) {
        byParentCall.delete(key);
        visit(child);
      }
    });
  };
  if (runs[0]) visit(runs[0]);
  return out;
}

export interface EventDivergence {
  /** The recorded run (its id in the bundle) where the logs first differ. */
  runId: string;
  seq: number;
  expected: RunEvent | undefined;
  actual: RunEvent | undefined;
  expectedLine: string | undefined;
  actualLine: string | undefined;
}

/** The first event at which the replayed family differs from the recorded one, byte for byte; undefined when identical. */
export function firstDivergence(recorded: readonly RunLines[], replayed: readonly RunLines[], renameReplayed: (line: string) => string): EventDivergence | undefined {
  const a = interleave(recorded, (line) => line);
  const b = interleave(replayed, renameReplayed);
  let configOnly: EventDivergence | undefined;
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const left = a[index];
    const right = b[index];
    if (left && right && left.line === right.line) continue;
    const place = left ?? right;
    const expected = left ? (JSON.parse(left.line) as RunEvent) : undefined;
    const actual = right ? (JSON.parse(right.line) as RunEvent) : undefined;
    const found: EventDivergence = {
      runId: left?.runId ?? actual?.runId ?? "",
      seq: place?.seq ?? 0,
      expected,
      actual,
      expectedLine: left?.line,
      actualLine: right?.line,
    };
    // A changed config changes run.started (its digest, its config) by design; what matters
    // is where the run then behaves differently, so that is reported when there is such a place.
    if (expected?.type === "run.started" && actual && sameBesidesConfig(expected, actual)) {
      configOnly ??= found;
      continue;
    }
    return found;
  }
  return configOnly;
}

function sameBesidesConfig(a: RunEvent, b: RunEvent): boolean {
  const strip = (event: RunEvent) => {
    const { agent: _agent, config: _config, ...rest } = event as EventOf<"run.started">;
    return canonicalJson(rest);
  };
  return b.type === "run.started" && strip(a) === strip(b);
}

export interface OutcomeSummary {
  status: string;
  output: string;
  toolsCalled: string[];
  blocked: { name: string; reason: string }[];
  failed: { name: string; kind: string }[];
}

/** What an on-call engineer compares between two runs: the tools called, what was blocked or failed, the final answer. */
export function outcomeOf(runs: readonly RunLines[]): OutcomeSummary {
  const root = runs[0];
  // Only the events an outcome is made of are parsed: a long run's model events are most of its bytes.
  const wanted = ["tool.requested", "tool.blocked", "tool.failed", "run.paused", "run.resumed", "run.finished"];
  const events = root
    ? linesOfTypes(root.lines, wanted).map(({ event }) => event)
    : [];
  let status = root ? "running" : "none";
  let output = "";
  for (const event of events) {
    if (event.type === "run.paused") status = "waiting";
    else if (event.type === "run.resumed") status = "running";
    else if (event.type === "run.finished") {
      status = event.status;
      output = event.output;
    }
  }
  return {
    status,
    output,
    toolsCalled: events.flatMap((event) => (event.type === "tool.requested" ? [event.name] : [])),
    blocked: events.flatMap((event) => (event.type === "tool.blocked" ? [{ name: event.name, reason: event.reason }] : [])),
    failed: events.flatMap((event) => (event.type === "tool.failed" ? [{ name: event.name, kind: event.error.kind }] : [])),
  };
}
