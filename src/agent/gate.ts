import type { BlockReason, EventPayload } from "../contracts/index.js";
import type { RunLog } from "../store/index.js";
import type { AnyTool } from "../tools/index.js";

/** A call the model asked for, with its tool found and its arguments validated. */
export interface PreparedCall {
  callId: string;
  name: string;
  tool: AnyTool;
  args: unknown;
}

export type CallVerdict =
  | { action: "run" }
  /** `events` (e.g. the guardrail that fired) are written just before the call's tool.blocked. */
  | { action: "block"; reason: BlockReason; detail: string; events?: EventPayload[] }
  /** Not decided yet (an approval is outstanding): the run pauses and nothing in the batch runs. */
  | { action: "wait"; roles: string[] };

/**
 * Governance plugs in here. `review` sees the whole batch before any call of it runs, may
 * append its own events (approval requests, guardrail firings) through the log, and returns one
 * verdict per call, in order.
 */
export interface CallGate {
  review(calls: readonly PreparedCall[], log: RunLog): Promise<CallVerdict[]> | CallVerdict[];
}

