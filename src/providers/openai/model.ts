/**
 * A LanguageModel over the OpenAI Chat Completions API, and over the many servers that speak
 * it ("openai-compatible": vLLM, Ollama, LiteLLM, Groq, ...), through the official SDK.
 */
import OpenAI from "openai";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse, ModelIdentity } from "../../contracts/index.js";
import { LlmResponseSchema } from "../../contracts/index.js";
import { answerHeaders, endpointOf } from "../../keys/index.js";
import { abortableFetch, DEFAULT_CALL_TIMEOUT_MS, captureErrorBodies, fromSdkError, parseWire, providerError, startDeadline, type ProviderCallContext } from "../http/index.js";
import { openAIErrors } from "./errors.js";
import { toChatCompletionBody, type ChatCompletionBody, type OpenAIDialect } from "./request.js";
import { ChatCompletionStreamAssembler, fromChatCompletion, type ToolCallIdSource } from "./response.js";
import { ChatCompletionChunkWire, ChatCompletionWire } from "./wire.js";

export interface OpenAIModelOptions {
  model: string;
  /** Required for "openai"; a compatible server may need none. Never read from the environment here. */
  apiKey?: string;
  /** Defaults to https://api.openai.com/v1 (explicitly: the SDK would otherwise read OPENAI_BASE_URL). */
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  /** Bounds the whole call, body and stream included. Default 10 minutes. */
  timeoutMs?: number;
  stream?: boolean;
  fetch?: typeof fetch;
  provider?: OpenAIDialect;
  defaultHeaders?: Record<string, string>;
}

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const dialect = options.provider ?? "openai";
  const baseURL = options.baseUrl ?? OPENAI_BASE_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const apiKey = options.apiKey ?? "";
  const label = dialect === "openai" ? "OpenAI" : `the OpenAI-compatible server at ${baseURL}`;

  const clientFor = (fetch: typeof globalThis.fetch): OpenAI =>
    new OpenAI({
      apiKey,
      baseURL,
      fetch,
      // The agent loop retries, so that every attempt is logged; the SDK must not retry too.
      maxRetries: 0,
      timeout: timeoutMs,
      // A keyless compatible server gets no "Authorization: Bearer " header at all.
      defaultHeaders: apiKey === "" ? { ...options.defaultHeaders, Authorization: null } : options.defaultHeaders,
      // Our errors carry what the SDK would log; its console output would only add noise.
      logLevel: "off",
    });

  async function generate(request: LlmRequest, generateOptions: GenerateOptions): Promise<LlmResponse> {
    const model = request.model || options.model;
    const context: ProviderCallContext = {
      provider: dialect,
      label,
      model,
      secrets: [apiKey],
      ...(generateOptions.now ? { now: generateOptions.now } : {}),
    };
    if (apiKey === "" && dialect === "openai") {
      throw providerError(context, "missing_key", `no API key is configured for OpenAI (model "${model}")`);
    }
    const body = toChatCompletionBody(request, { ...options, dialect });
    const makeId: ToolCallIdSource = (position) => `call_${generateOptions.callIndex}_${position}`;
    // A client per call: the error-body capture must belong to this call alone.
    const capture = captureErrorBodies(abortableFetch(options.fetch));
    const client = clientFor(capture.fetch);
    const deadline = startDeadline(timeoutMs, generateOptions.signal);
    try {
      const work = options.stream
        ? generateStreaming(client, body, makeId, context, deadline.signal, generateOptions.onTextDelta)
        : client.chat.completions
            .create(body, { signal: deadline.signal })
            .then((wire) => fromChatCompletion(parseWire(ChatCompletionWire, wire, context, "a response"), makeId));
      return LlmResponseSchema.parse(await deadline.race(work));
    } catch (error) {
      throw await fromSdkError(error, openAIErrors(capture.errorBody), { context, deadline, timeoutMs });
    } finally {
      deadline.dispose();
    }
  }

  const identity: ModelIdentity = {
    provider: dialect,
    model: options.model,
    // Without credentials a URL may carry, so that the identity can be shown and logged.
    baseUrl: endpointOf(baseURL) ?? undefined,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    // A gateway may answer by a header (a routing or API-version header): configured ones count.
    ...(Object.keys(answerHeaders(options.defaultHeaders)).length > 0 ? { headers: answerHeaders(options.defaultHeaders) } : {}),
  };
  return { provider: dialect, model: options.model, identity, generate };
}

async function generateStreaming(
  client: OpenAI,
  body: ChatCompletionBody,
  makeId: ToolCallIdSource,
  context: ProviderCallContext,
  signal: AbortSignal,
  onTextDelta: ((delta: string) => void) | undefined,
): Promise<LlmResponse> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  const assembler = new ChatCompletionStreamAssembler(onTextDelta);
  let chunkNumber = 0;
  for await (const chunk of stream) {
    // Chunks already buffered when the deadline fired must not reach onTextDelta.
    if (signal.aborted) break;
    chunkNumber++;
    assembler.add(parseWire(ChatCompletionChunkWire, chunk, context, `stream chunk ${chunkNumber}`));
  }
  // Both SDKs end iteration quietly when the request is aborted, so ask the signal.
  signal.throwIfAborted();
  const { response, sawFinishReason, sawUsage } = assembler.finish(makeId);
  // OpenAI always ends with a finish_reason and, as asked by include_usage, a usage chunk:
  // without them the stream was cut. Compatible servers often skip both, so they are let off.
  if (context.provider === "openai" && (!sawFinishReason || !sawUsage)) {
    const missing = sawFinishReason ? "the usage chunk" : "a finish_reason";
    throw providerError(context, "invalid_response", `${context.label} ended the stream after ${chunkNumber} chunks without ${missing}; the stream was cut short`);
  }
  return response;
}
