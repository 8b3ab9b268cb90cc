/** A LanguageModel over the Anthropic Messages API, through the official SDK. */
import Anthropic from "@anthropic-ai/sdk";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse, ModelIdentity } from "../../contracts/index.js";
import { LlmResponseSchema } from "../../contracts/index.js";
import { answerHeaders, endpointOf } from "../../keys/index.js";
import { abortableFetch, DEFAULT_CALL_TIMEOUT_MS, fromSdkError, parseWire, providerError, startDeadline, type ProviderCallContext } from "../http/index.js";
import { anthropicErrors } from "./errors.js";
import { DEFAULT_MAX_TOKENS, toMessagesBody, type MessagesBody } from "./request.js";
import { fromMessage, MessageStreamAssembler } from "./response.js";
import { MessageWire, StreamEventWire } from "./wire.js";

export interface AnthropicModelOptions {
  model: string;
  apiKey?: string;
  /** Defaults to https://api.anthropic.com (explicitly: the SDK would otherwise read ANTHROPIC_BASE_URL). */
  baseUrl?: string;
  /**
   * Refused: API version 2026-10-21, which @anthropic-ai/sdk 1.x sends, answers 400 to any
   * temperature, even the default. Accepted here only so that the refusal is a clear error.
   */
  temperature?: number;
  /** The API requires a limit; 4096 when neither this nor the request sets one. */
  maxTokens?: number;
  /** Bounds the whole call, body and stream included. Default 10 minutes. */
  timeoutMs?: number;
  stream?: boolean;
  fetch?: typeof fetch;
  defaultHeaders?: Record<string, string>;
}

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The `anthropic-version` @anthropic-ai/sdk 1.x sends; a configured header of that name replaces it. */
export const ANTHROPIC_API_VERSION = "2026-10-21";

export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const apiKey = options.apiKey ?? "";
  let client: Anthropic | undefined;
  // Built on first use and only with a key: without one the SDK would go looking for
  // credentials in the environment and in profile files on disk.
  const clientOf = (): Anthropic =>
    (client ??= new Anthropic({
      apiKey,
      baseURL: options.baseUrl ?? ANTHROPIC_BASE_URL,
      fetch: abortableFetch(options.fetch),
      // The agent loop retries, so that every attempt is logged; the SDK must not retry too.
      maxRetries: 0,
      // An explicit timeout also stops the SDK refusing non-streaming calls with a large
      // max_tokens ("streaming is required for operations that may take longer than 10 minutes").
      timeout: timeoutMs,
      defaultHeaders: options.defaultHeaders,
      logLevel: "off",
    }));

  async function generate(request: LlmRequest, generateOptions: GenerateOptions): Promise<LlmResponse> {
    const model = request.model || options.model;
    const context: ProviderCallContext = {
      provider: "anthropic",
      label: "Anthropic",
      model,
      secrets: [apiKey],
      ...(generateOptions.now ? { now: generateOptions.now } : {}),
    };
    if (apiKey === "") throw providerError(context, "missing_key", `no API key is configured for Anthropic (model "${model}")`);
    const temperature = request.temperature ?? options.temperature;
    if (temperature !== undefined) {
      // Dropping it quietly would let a run claim a temperature it never had.
      throw providerError(
        context,
        "bad_request",
        `Anthropic's Messages API (version 2026-10-21, spoken by @anthropic-ai/sdk 1.x) rejects any temperature, and this request sets ${temperature}; remove the temperature setting for this provider`,
      );
    }
    const body = toMessagesBody(request, options);
    const deadline = startDeadline(timeoutMs, generateOptions.signal);
    try {
      const work = options.stream
        ? generateStreaming(clientOf(), body, context, deadline.signal, generateOptions.onTextDelta)
        : generateWhole(clientOf(), body, context, deadline.signal);
      return LlmResponseSchema.parse(await deadline.race(work));
    } catch (error) {
      throw await fromSdkError(error, anthropicErrors, { context, deadline, timeoutMs });
    } finally {
      deadline.dispose();
    }
  }

  const identity: ModelIdentity = {
    provider: "anthropic",
    model: options.model,
    // Without credentials a URL may carry, so that the identity can be shown and logged.
    baseUrl: endpointOf(options.baseUrl ?? ANTHROPIC_BASE_URL) ?? undefined,
    // The limit always sent; a temperature is refused at the call, but it is what was asked.
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    // The API version and beta features decide what the API does with a request.
    headers: { "anthropic-version": ANTHROPIC_API_VERSION, ...answerHeaders(options.defaultHeaders) },
  };
  return { provider: "anthropic", model: options.model, identity, generate };
}

/**
 * The body is read as text, not through the SDK's parse, because the SDK hands back
 * `tool_use.input` as a parsed object: re-serialising it would lose `1.0` and the digits of a
 * large integer. The input's own text is cut out of the body instead (see fromMessage).
 */
async function generateWhole(client: Anthropic, body: MessagesBody, context: ProviderCallContext, signal: AbortSignal): Promise<LlmResponse> {
  // asResponse still throws the SDK's typed errors for an HTTP error status.
  const response = await client.messages.create(body, { signal }).asResponse();
  const text = await response.text();
  // As the SDK does: a body that does not say it is JSON is handed on as text, which parseWire
  // reports as "not JSON"; a JSON body that does not parse throws a SyntaxError (fromSdkError).
  const mediaType = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
  const isJson = mediaType.includes("application/json") || mediaType.endsWith("+json");
  const value: unknown = isJson ? JSON.parse(text) : text;
  return fromMessage(parseWire(MessageWire, value, context, "a response"), text);
}

async function generateStreaming(
  client: Anthropic,
  body: MessagesBody,
  context: ProviderCallContext,
  signal: AbortSignal,
  onTextDelta: ((delta: string) => void) | undefined,
): Promise<LlmResponse> {
  const stream = await client.messages.create({ ...body, stream: true }, { signal });
  const assembler = new MessageStreamAssembler(onTextDelta);
  let eventNumber = 0;
  for await (const raw of stream) {
    // Events already buffered when the deadline fired must not reach onTextDelta.
    if (signal.aborted) break;
    eventNumber++;
    const type = (raw as { type?: unknown }).type;
    if (typeof type !== "string" || !Object.hasOwn(StreamEventWire, type)) continue;
    const what = `stream event ${eventNumber} (${type})`;
    if (type === "message_start") assembler.messageStart(parseWire(StreamEventWire.message_start, raw, context, what));
    else if (type === "content_block_start") assembler.blockStart(parseWire(StreamEventWire.content_block_start, raw, context, what));
    else if (type === "content_block_delta") assembler.blockDelta(parseWire(StreamEventWire.content_block_delta, raw, context, what));
    else if (type === "message_delta") assembler.messageDelta(parseWire(StreamEventWire.message_delta, raw, context, what));
    else if (type === "message_stop") assembler.sawMessageStop = true;
  }
  // Both SDKs end iteration quietly when the request is aborted, so ask the signal.
  signal.throwIfAborted();
  if (!assembler.sawMessageStop) {
    throw providerError(context, "invalid_response", `${context.label} ended the stream after ${eventNumber} events without message_stop; the stream was cut short`);
  }
  return assembler.finish();
}
