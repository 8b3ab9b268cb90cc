import type { AnyTool, ToolContext } from "../tools/index.js";
import type { ReplayApprover } from "./approver.js";
import type { RecordedRun } from "./recording.js";

export interface ToolReplaySettings {
  recordedRun(runId: string): RecordedRun | undefined;
  /** "live": tools marked idempotent run for real (to test them); the rest always serve the recording. */
  mode: "recorded" | "live";
  /** What happens to a call the recording does not hold: strict replay fails it, a "what if" runs it. */
  unrecorded: "fail" | "run";
  /** Whether the run's model requests have left the recording: its later calls are the changed agent's own. */
  diverged: (runId: string) => boolean;
}

/**
 * A tool under replay: it returns the recorded result of the same call (same run, call id and
 * tool), with the retrievals it recorded, and has no side effects. A recorded failure is thrown
 * again with its message, so the agent records the same `tool.failed`.
 */
export function replayTool(tool: AnyTool, settings: ToolReplaySettings): AnyTool {
  return {
    ...tool,
    async run(args: unknown, context: ToolContext): Promise<unknown> {
      if (settings.mode === "live" && tool.idempotent) return tool.run(args, context);
      if (settings.unrecorded === "run" && settings.diverged(context.runId)) return tool.run(args, context);
      const recorded = settings.recordedRun(context.runId)?.calls.get(context.callId);
      if (!recorded || recorded.name !== tool.name || !recorded.outcome) {
        if (settings.unrecorded === "run") return tool.run(args, context);
        throw new Error(`replay: the recording holds no outcome for call ${context.callId} (${tool.name})`);
      }
      for (const retrieval of recorded.retrievals) context.recordRetrieval(retrieval.query, structuredClone(retrieval.chunks));
      if (recorded.outcome.type === "tool.failed") throw new Error(recorded.outcome.error.message);
      return structuredClone(recorded.outcome.result);
    },
  };
}

export type { ReplayApprover };
