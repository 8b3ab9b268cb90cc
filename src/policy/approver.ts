/** A decision taken while the run waits, e.g. by a person at the terminal. */
export interface ApprovalDecision {
  approved: boolean;
  role: string;
  reason?: string;
  by?: string;
}

export interface ApprovalQuestion {
  /** The run that holds the call (a child run for a sub-agent's call). */
  runId?: string;
  callId: string;
  tool: string;
  args: unknown;
  /** The roles still missing; "approver" stands for "anyone" when the tool names no role. */
  missingRoles: string[];
}

/**
 * Asked when a call needs a decision. Returning no decisions leaves the call pending, and the
 * run pauses: with no approver configured nothing is ever approved by default.
 */
export interface Approver {
  decide(question: ApprovalQuestion): Promise<ApprovalDecision[]>;
  /** Releases what it holds open (a terminal reader keeps the process alive). */
  close?(): void;
}
