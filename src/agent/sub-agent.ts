import { z } from "zod";
import type { RunContext } from "../context/index.js";
import type { RunLog } from "../store/index.js";
import { defineTool, type AnyTool } from "../tools/index.js";
import type { TurnOutcome } from "./agent-run.js";
import type { AgentDefinition } from "./definition.js";

const SUB_AGENT = Symbol("retrace.subAgent");

export type SubAgentTool = AnyTool & { readonly [SUB_AGENT]: AgentDefinition };

/**
 * An agent used as a tool. It runs as its own run, linked to the parent's call, through the
 * agent loop rather than `run`: the loop gives it the store and the run context, and pauses
 * the parent while the child waits.
 */
export function subAgentTool(name: string, child: AgentDefinition, description?: string): SubAgentTool {
  const tool = defineTool({
    name,
    description: description ?? `Delegates a task to the ${child.name} agent and returns its answer.`,
    input: z.object({ task: z.string().min(1).describe("What the agent should do, in full.") }),
    readOnly: child.tools.every((childTool) => childTool.readOnly),
    run: () => {
      throw new Error("a sub-agent runs through the agent loop");
    },
  });
  return Object.assign(tool, { [SUB_AGENT]: child });
}

export function isSubAgent(tool: AnyTool): tool is SubAgentTool {
  return SUB_AGENT in tool;
}

/** The agent a sub-agent tool runs. */
export function subAgentDefinition(tool: SubAgentTool): AgentDefinition {
  return tool[SUB_AGENT];
}

/** The child's run id is derived from the parent call, so there is never a second child for one call. */
export function childRunId(parentRunId: string, callId: string): string {
  return `${parentRunId}.${callId}`;
}

/** Starts the call's child run, or continues it if the log already has one (after a pause). */
export async function runChild(tool: SubAgentTool, task: string, parent: RunLog, callId: string, context: RunContext): Promise<TurnOutcome> {
  // Imported here: agent-run imports this module's callers, and the class is needed only at call time.
  const { AgentRun } = await import("./agent-run.js");
  const child = tool[SUB_AGENT];
  const runId = childRunId(parent.runId, callId);
  const options = { store: parent.store, context };
  if (parent.store.lastSeq(runId) > 0) return AgentRun.open(child, runId, options).resume();
  return AgentRun.start(child, { ...options, runId, parent: { runId: parent.runId, callId } }).send(task);
}
