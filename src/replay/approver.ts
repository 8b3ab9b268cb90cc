import type { ApprovalDecision, ApprovalQuestion, Approver } from "../policy/index.js";
import type { RecordedRun } from "./recording.js";

export type ReplayApprover = Approver;

/**
 * Serves the decisions an approver took during the recorded run (`--approve prompt`), each
 * once, for the same run and call. Decisions recorded while the run was paused are not served
 * here: the replay appends them where the recording has them, as `retrace approve` did.
 */
export function replayApprover(recordedRun: (runId: string) => RecordedRun | undefined): Approver {
  const used = new Set<string>();
  return {
    decide(question: ApprovalQuestion): Promise<ApprovalDecision[]> {
      const key = `${question.runId ?? ""}\u0000${question.callId}`;
      if (used.has(key)) return Promise.resolve([]);
      used.add(key);
      const decisions = recordedRun(question.runId ?? "")?.decisions.get(question.callId) ?? [];
      return Promise.resolve(
        decisions.map((decision) =>
          decision.type === "approval.granted"
            ? { approved: true, role: decision.role, ...(decision.by !== undefined ? { by: decision.by } : {}) }
            : { approved: false, role: decision.role, reason: decision.reason, ...(decision.by !== undefined ? { by: decision.by } : {}) },
        ),
      );
    },
  };
}
