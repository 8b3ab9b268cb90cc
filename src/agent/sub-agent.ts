import { z } from "zod";
import { defineTool, type AnyTool } from "../tools/index.js";
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

/**
 * The n-th judge run (1-based) of a run: an LLM-judge scorer's question about it, asked by an
 * eval after the run, as a run of its own whose parent is the judged run at call `judge_<n>`.
 * The judged run's log does not name it (it was over when the judge was asked): capture finds
 * it by this id and its parent link.
 */
export function judgeLink(runId: string, n: number): { runId: string; callId: string } {
  return { runId: `${runId}.judge${n}`, callId: `judge_${n}` };
}
