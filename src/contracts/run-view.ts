/**
 * The run view contract: what assertions, scorers and matchers read of a run. It is derived
 * from the log alone (see `viewRun` in the journal), so the same log always gives the same view.
 */
import type { BlockReason, ErrorInfo, EventOf, RetrievedChunk, RunEvent, ToolErrorKind } from "./events.js";
import type { Usage } from "./model.js";

/** What happened to one tool call. Only `finished` counts as "called". */
export type ToolCallStatus = "finished" | "failed" | "blocked" | "pending" | "unknown_outcome";

export interface ToolCallView {
  callId: string;
  name: string;
  /** Parsed arguments; undefined when the model's argument text was not JSON (see rawArgs). */
  args: unknown;
  rawArgs: string | undefined;
  /** The model step that asked for the call, counted over the whole run from 1. */
  step: number;
  /** The user turn it belongs to, from 1. */
  turn: number;
  status: ToolCallStatus;
  result: unknown;
  error: { kind: ToolErrorKind; message: string } | undefined;
  blocked: { reason: BlockReason; detail: string } | undefined;
}

export interface TurnView {
  /** From 1. */
  index: number;
  input: string;
  /** "running" while the turn has no outcome yet (a crash, or the run is being driven). */
  status: "running" | "waiting" | "completed" | "failed";
  output: string;
  error: ErrorInfo | undefined;
  steps: number;
}

export interface RetrievalView {
  /** The tool call that searched; undefined for augmentation. */
  callId: string | undefined;
  tool: string | undefined;
  mode: "tool" | "augment";
  /** The user turn it belongs to, from 1. */
  turn: number;
  query: string;
  chunks: RetrievedChunk[];
}

export type GuardrailView = Omit<EventOf<"guardrail">, "v" | "runId" | "at" | "type">;

export interface RunView {
  runId: string | undefined;
  events: readonly RunEvent[];
  toolCalls: ToolCallView[];
  turns: TurnView[];
  /** The last turn's answer ("" when it failed or has not finished). */
  output: string;
  /** The last turn's status; "new" for an empty log. */
  status: TurnView["status"] | "new";
  error: ErrorInfo | undefined;
  usage: Usage;
  /** Model calls that returned, over the whole run. */
  steps: number;
  /** Every model attempt, failed ones included. */
  llmCalls: number;
  /** US dollars; null as soon as one call's price is unknown. */
  cost: number | null;
  retrievals: RetrievalView[];
  guardrails: GuardrailView[];
}
