/**
 * The event contract, format version 1. Every fact about a run is one of these events, in a
 * per-run sequence starting at seq 1. Stored and hashed as canonical JSON, one per line.
 * Adding an optional field is compatible; anything else bumps EVENT_FORMAT_VERSION.
 */
import { z } from "zod";
import { LlmRequestSchema, LlmResponseSchema, ModelIdentitySchema, UsageSchema } from "./model.js";

export const EVENT_FORMAT_VERSION = 1;

const json = z.unknown();

const envelope = {
  v: z.literal(EVENT_FORMAT_VERSION),
  runId: z.string().min(1),
  seq: z.number().int().positive(),
  /** ISO-8601 time from the run's clock. */
  at: z.string(),
};

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ ...envelope, type: z.literal(type), ...shape });
}

export const ErrorInfoSchema = z.object({ code: z.string(), message: z.string() });
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

export const RunStatusSchema = z.enum(["running", "waiting", "completed", "failed"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const ToolErrorKindSchema = z.enum([
  "invalid_arguments",
  "unknown_tool",
  "threw",
  "invalid_result",
  "timeout",
  "child_failed",
  /** The turn ended (aborted, failed) before the call could run. */
  "not_run",
]);
export type ToolErrorKind = z.infer<typeof ToolErrorKindSchema>;

/** Why a call never ran. A call that ran and failed is `tool.failed`, never blocked. */
export const BlockReasonSchema = z.enum([
  "rate_limited",
  "policy_denied",
  "mode_blocked",
  "approval_denied",
  "approval_expired",
  "guardrail",
]);
export type BlockReason = z.infer<typeof BlockReasonSchema>;

export const RetrievedChunkSchema = z.object({
  id: z.string(),
  source: z.string(),
  text: z.string(),
  score: z.number(),
  rank: z.number().int().positive(),
  /** The document's title (front matter, first heading, or record field), when it has one. */
  title: z.string().optional(),
  /** Headings above the chunk, outermost first. */
  headings: z.array(z.string()).optional(),
});
export type RetrievedChunk = z.infer<typeof RetrievedChunkSchema>;

export const PendingApprovalSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  roles: z.array(z.string()),
  /** The run that holds the approval, when it is a child run rather than this one. */
  runId: z.string().optional(),
  /**
   * Not an approval: a call that started and whose outcome is unknown (the process died while
   * it ran, and it is not idempotent). A person decides: `retrace approve --rerun | --skip`.
   */
  unknownOutcome: z.literal(true).optional(),
});

export const RunStartedSchema = event("run.started", {
  agent: z.object({ name: z.string(), digest: z.string() }),
  /**
   * The model's identity (provider, model, and for an HTTP provider where it sends requests and
   * the sampling it adds): what a replay needs to rebuild the model and its request keys.
   * Logs from before it was recorded hold only provider and model.
   */
  model: ModelIdentitySchema,
  seed: z.number().int(),
  /** The agent's configuration with secrets redacted. */
  config: json,
  parent: z.object({ runId: z.string(), callId: z.string() }).optional(),
  /**
   * Where the CLI found the agent (paths relative to where it ran), so `resume` can rebuild it;
   * `cassette`: the cassette its model traffic was recorded to or replayed from.
   */
  source: z.object({ config: z.string().optional(), mock: z.string().optional(), cassette: z.string().optional() }).optional(),
});
export const MessageEventSchema = event("message", {
  role: z.literal("user"),
  content: z.string(),
  /**
   * An input guardrail stopped this turn: the text is kept (a replay re-sends it, views show
   * it), but it never enters the conversation, so no later model request sees it.
   */
  blocked: z.boolean().optional(),
});
export const LlmStartedSchema = event("llm.started", {
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  requestKey: z.string(),
  request: LlmRequestSchema,
});
export const LlmFinishedSchema = event("llm.finished", {
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  requestKey: z.string(),
  response: LlmResponseSchema,
  /** US dollars; null when the model's price is unknown (never a fake 0). */
  cost: z.number().nonnegative().nullable(),
  durationMs: z.number().nonnegative(),
});
export const LlmFailedSchema = event("llm.failed", {
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  requestKey: z.string(),
  error: z.object({
    code: z.string(),
    kind: z.string(),
    message: z.string(),
    status: z.number().int().optional(),
    retryAfterMs: z.number().nonnegative().optional(),
  }),
  /** Milliseconds until the next attempt, or null when the agent gives up. */
  retryInMs: z.number().nonnegative().nullable(),
});
/**
 * Closes an attempt whose `llm.started` has no outcome because the process running it stopped
 * during the call. Logged by the resume that found it (a resume marker), before the call is asked
 * again as the next attempt: the provider may have received, and billed, the interrupted one.
 */
export const LlmInterruptedSchema = event("llm.interrupted", {
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  requestKey: z.string(),
});
export const ToolRequestedSchema = event("tool.requested", {
  step: z.number().int().positive(),
  callId: z.string(),
  name: z.string(),
  /** Parsed arguments; absent when the model's argument text was not valid JSON. */
  args: json.optional(),
  /** The raw argument text, kept only when it could not be parsed. */
  rawArgs: z.string().optional(),
});
export const ToolBlockedSchema = event("tool.blocked", {
  callId: z.string(),
  name: z.string(),
  reason: BlockReasonSchema,
  detail: z.string(),
});
export const ToolStartedSchema = event("tool.started", { callId: z.string(), name: z.string() });
export const ToolFinishedSchema = event("tool.finished", {
  callId: z.string(),
  name: z.string(),
  result: json,
});
export const ToolFailedSchema = event("tool.failed", {
  callId: z.string(),
  name: z.string(),
  error: z.object({ kind: ToolErrorKindSchema, message: z.string() }),
});
export const ToolUnknownOutcomeSchema = event("tool.unknown_outcome", {
  callId: z.string(),
  name: z.string(),
  detail: z.string(),
});
/** A person's decision on a call whose outcome is unknown: run it again, or tell the model the outcome is unknown. */
export const ToolDecidedSchema = event("tool.decided", {
  callId: z.string(),
  name: z.string(),
  decision: z.enum(["rerun", "skip"]),
  by: z.string().optional(),
});
export const RetrievalSchema = event("retrieval", {
  /** The tool call that searched (mode "tool"); absent for augmentation. */
  callId: z.string().optional(),
  tool: z.string().optional(),
  /** "tool": a retrieval tool ran; "augment": the agent retrieved before the turn's model call. Absent in older logs: "tool". */
  mode: z.enum(["tool", "augment"]).optional(),
  /** The user turn it belongs to, from 1 (older logs: derived from its place). */
  turn: z.number().int().positive().optional(),
  query: z.string(),
  chunks: z.array(RetrievedChunkSchema),
});
export const GuardrailSchema = event("guardrail", {
  direction: z.enum(["input", "output"]),
  action: z.enum(["block", "warn", "redact"]),
  rule: z.string(),
  detail: z.string(),
  callId: z.string().optional(),
});
export const ApprovalRequestedSchema = event("approval.requested", {
  callId: z.string(),
  tool: z.string(),
  argsHash: z.string(),
  roles: z.array(z.string()),
  /** Epoch ms on the run clock after which a decision no longer counts; absent: no deadline. */
  deadline: z.number().optional(),
});
export const ApprovalGrantedSchema = event("approval.granted", {
  callId: z.string(),
  argsHash: z.string(),
  role: z.string(),
  by: z.string().optional(),
});
export const ApprovalDeniedSchema = event("approval.denied", {
  callId: z.string(),
  argsHash: z.string(),
  role: z.string(),
  reason: z.string(),
  by: z.string().optional(),
});
export const ApprovalExpiredSchema = event("approval.expired", { callId: z.string(), detail: z.string() });
export const RunPausedSchema = event("run.paused", {
  reason: z.enum(["approval", "child_waiting", "unknown_outcome"]),
  pending: z.array(PendingApprovalSchema),
  childRunId: z.string().optional(),
});
export const RunResumedSchema = event("run.resumed", {});
export const RunFinishedSchema = event("run.finished", {
  status: z.enum(["completed", "failed"]),
  output: z.string(),
  error: ErrorInfoSchema.optional(),
  usage: UsageSchema,
  cost: z.number().nonnegative().nullable(),
  steps: z.number().int().nonnegative(),
});

export const RunEventSchema = z.discriminatedUnion("type", [
  RunStartedSchema,
  MessageEventSchema,
  LlmStartedSchema,
  LlmFinishedSchema,
  LlmFailedSchema,
  LlmInterruptedSchema,
  ToolRequestedSchema,
  ToolBlockedSchema,
  ToolStartedSchema,
  ToolFinishedSchema,
  ToolFailedSchema,
  ToolUnknownOutcomeSchema,
  ToolDecidedSchema,
  RetrievalSchema,
  GuardrailSchema,
  ApprovalRequestedSchema,
  ApprovalGrantedSchema,
  ApprovalDeniedSchema,
  ApprovalExpiredSchema,
  RunPausedSchema,
  RunResumedSchema,
  RunFinishedSchema,
]);

export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent["type"];
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** An event as a writer hands it to the log: the log fills in v, runId, seq and at. */
export type EventPayload<T extends RunEventType = RunEventType> = T extends RunEventType
  ? Omit<EventOf<T>, "v" | "runId" | "seq" | "at">
  : never;
