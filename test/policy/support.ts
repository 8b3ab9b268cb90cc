import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { AgentRun, type AgentDefinition } from "../../src/agent/index.js";
import { buildAgent, parseConfig, type BuildOptions } from "../../src/config/index.js";
import { createRunContext, manualClock } from "../../src/context/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { MemoryRunStore, RunLog } from "../../src/store/index.js";
import { type RunStore, type ScriptInput } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { tempDir } from "../helpers.js";

/** An agent from inline YAML (as a user writes it) answered by an inline script. */
export async function agentFrom(yaml: string, script: ScriptInput, options: BuildOptions = {}, baseDir = tempDir()): Promise<AgentDefinition> {
  mkdirSync(join(baseDir, "workspace"), { recursive: true });
  const { config, missingEnv } = parseConfig(`workspace: ${baseDir}/workspace\n${yaml}`, { file: "agent.yaml", env: {} });
  return buildAgent({ config, file: "agent.yaml", baseDir, missingEnv }, { mock: new ScriptedModel(script), ...options });
}

export function setup(store: RunStore = new MemoryRunStore()) {
  const clock = manualClock(Date.UTC(2026, 0, 1), 0);
  let next = 1;
  const context = createRunContext({ clock, ids: { runId: () => `run_${next++}` } });
  return { store, clock, context };
}

export async function start(agent: AgentDefinition, message: string, env = setup()) {
  const run = AgentRun.start(agent, { store: env.store, context: env.context });
  const outcome = await run.send(message);
  return { run, outcome, ...env };
}

/** Records a decision the way `retrace approve` does: through the run's log, from outside the agent. */
export function decide(store: RunStore, runId: string, callId: string, decision: { role?: string; deny?: string }, clock = manualClock(Date.UTC(2026, 0, 1))) {
  const log = RunLog.open(runId, store, clock);
  const approval = log.state.pendingApprovals.find((candidate) => candidate.callId === callId);
  if (!approval) throw new Error(`no pending approval for ${callId}`);
  const role = decision.role ?? "approver";
  if (decision.deny !== undefined) log.append<"approval.denied">({ type: "approval.denied", callId, argsHash: approval.argsHash, role, reason: decision.deny });
  else log.append<"approval.granted">({ type: "approval.granted", callId, argsHash: approval.argsHash, role });
}

export const ofType = <T extends RunEvent["type"]>(events: readonly RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

/** What the model was told about a call: the tool message in the next request. */
export function toldModel(events: readonly RunEvent[], callId: string): string | undefined {
  for (const event of ofType(events, "llm.started").reverse()) {
    const message = event.request.messages.find((candidate) => candidate.role === "tool" && candidate.toolCallId === callId);
    if (message) return message.content;
  }
  return undefined;
}
