/**
 * The normalised model contract, version 1. Providers (OpenAI, Anthropic, scripted, replay)
 * translate to and from these shapes; the agent, the log and replay see nothing else.
 * This file depends on no provider SDK and no store.
 */
import { z } from "zod";

export const MODEL_CONTRACT_VERSION = 1;

const jsonValue: z.ZodType<unknown> = z.unknown();

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** The arguments as JSON text, exactly as the model produced them (they may be malformed). */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const SystemMessageSchema = z.object({ role: z.literal("system"), content: z.string() });
export const UserMessageSchema = z.object({ role: z.literal("user"), content: z.string() });
export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string(),
  toolCalls: z.array(ToolCallSchema),
});
export const ToolMessageSchema = z.object({
  role: z.literal("tool"),
  toolCallId: z.string(),
  name: z.string(),
  content: z.string(),
  isError: z.boolean(),
});
export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type Message = z.infer<typeof MessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

export const ToolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema (draft 2020-12 subset) of the arguments object. */
  parameters: z.record(z.string(), jsonValue),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const LlmRequestSchema = z.object({
  model: z.string(),
  system: z.string().optional(),
  messages: z.array(MessageSchema),
  tools: z.array(ToolSpecSchema),
  temperature: z.number().optional(),
  maxTokens: z.number().int().optional(),
  seed: z.number().int().optional(),
});
export type LlmRequest = z.infer<typeof LlmRequestSchema>;

/** A small closed set, so that assertions and reports never see provider spellings. */
export const StopReasonSchema = z.enum(["end", "tool_calls", "max_tokens", "content_filter", "other"]);
export type StopReason = z.infer<typeof StopReasonSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Input tokens served from the provider's prompt cache (a subset of inputTokens). */
  cachedInputTokens: z.number().int().nonnegative(),
  /**
   * In a total over model calls (a run's usage): the calls whose provider reported no usage.
   * Their tokens are in none of the counts, which are then only a lower bound. Absent when
   * every call reported its usage.
   */
  unknownCalls: z.number().int().positive().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const LlmResponseSchema = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  text: z.string(),
  toolCalls: z.array(ToolCallSchema),
  stopReason: StopReasonSchema,
  /** null: the provider reported no usage (compatible servers may omit it). Unknown, never 0. */
  usage: UsageSchema.nullable(),
});
export type LlmResponse = z.infer<typeof LlmResponseSchema>;

export interface GenerateOptions {
  /** How many model calls this run has recorded before this one (retries included). */
  callIndex: number;
  /** The run the call belongs to: a replay model serves each run (each child run) its own recording. */
  runId?: string;
  /** The request's key, as its `llm.started` logged it (a replay model checks it against the recording). */
  requestKey?: string;
  /** 1 for the first try of this request, 2 for the first retry, ... — as its `llm.started` logged it. */
  attempt: number;
  /**
   * How many of this request's earlier attempts were interrupted (the process stopped during
   * the call, and a resume asks again): they have no outcome, so `attempt - 1 - interrupted`
   * earlier attempts failed. Absent when none was.
   */
  interrupted?: number;
  signal?: AbortSignal;
  /** Streaming providers report text as it arrives; the final response still holds all of it. */
  onTextDelta?: (delta: string) => void;
  /**
   * The attempt's time (epoch ms) — the `at` of its logged `llm.started`, never a fresh clock
   * read — for anything time-relative such as an HTTP-date retry-after.
   */
  now?: () => number;
}

/**
 * What a model sends with every request beyond the request itself, when that can change the
 * answer: the provider, where the requests go, and the sampling defaults it applies where the
 * request sets none (the request's own values win), and the headers that change what the API
 * does with it. Never credentials. Request keys and the agent digest include it, so two
 * OpenAI-compatible servers serving one model name, one model built at two temperatures, or
 * one Anthropic model with and without a beta header, never look alike.
 */
export const ModelIdentitySchema = z.object({
  provider: z.string(),
  /** The model asked for when the request names none. */
  model: z.string(),
  /** Where requests go, without any credentials the configured URL carried. */
  baseUrl: z.string().optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().int().optional(),
  seed: z.number().int().optional(),
  /**
   * Headers sent with every request that can change the answer (`anthropic-version`,
   * `anthropic-beta`, a gateway's routing header), names in lower case; credential headers and
   * transport headers (user agent, retry counts) are never in it.
   */
  headers: z.record(z.string(), z.string()).optional(),
});
export type ModelIdentity = z.infer<typeof ModelIdentitySchema>;

/** What every provider implements. Errors are thrown as `ProviderError` (see errors/). */
export interface LanguageModel {
  readonly provider: string;
  readonly model: string;
  /**
   * Required of any model that sends more than the request (an HTTP provider); a model that
   * answers from the request alone (scripted, replay) may leave it out, and is then known by
   * its provider and model.
   */
  readonly identity?: ModelIdentity;
  /**
   * The request's conversation is the run's own (frozen): its list and messages are read, never
   * edited — an edit throws a TypeError. A model that needs another conversation builds one.
   */
  generate(request: LlmRequest, options: GenerateOptions): Promise<LlmResponse>;
}

export function identityOf(model: Pick<LanguageModel, "provider" | "model" | "identity">): ModelIdentity {
  return model.identity ?? { provider: model.provider, model: model.model };
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });

/** A total plus one call's usage (null when unknown) or another total. */
export function addUsage(a: Usage, b: Usage | null): Usage {
  const unknownCalls = (a.unknownCalls ?? 0) + (b === null ? 1 : (b.unknownCalls ?? 0));
  return {
    inputTokens: a.inputTokens + (b?.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b?.outputTokens ?? 0),
    cachedInputTokens: a.cachedInputTokens + (b?.cachedInputTokens ?? 0),
    ...(unknownCalls > 0 ? { unknownCalls } : {}),
  };
}
