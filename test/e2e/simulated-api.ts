/**
 * Simulated provider APIs for the end-to-end tests: msw handlers that answer a script of turns
 * in each provider's documented wire format, and record exactly what the SDK sent.
 *
 * Like the real APIs, a handler answers with JSON or with SSE according to the `stream` flag of
 * the request body it received, so a test in streaming mode proves that the adapter asked for a
 * stream. Streamed bodies are cut at hostile byte boundaries (inside JSON strings and inside
 * multi-byte UTF-8 characters) by the provider tests' `hostileChunks`.
 */
import { http, HttpResponse } from "msw";
import type { setupServer } from "msw/node";
import { anthropicSse, hostileChunks, openAISse, sseResponse, streamOf } from "../providers/support.js";

export type Server = ReturnType<typeof setupServer>;
export type WireProvider = "openai" | "anthropic";

/** Token counts as the simulated provider reports them (the provider's own notion of input). */
export interface WireUsage {
  /** OpenAI: prompt_tokens (cached included); Anthropic: input_tokens (cache excluded). */
  input: number;
  output: number;
  /** OpenAI: prompt_tokens_details.cached_tokens; Anthropic: cache_read_input_tokens. */
  cacheRead: number;
  /** Anthropic only: cache_creation_input_tokens. */
  cacheWrite?: number;
}

export type Turn =
  | { kind: "tool_call"; id: string; name: string; args: Record<string, unknown>; usage: WireUsage }
  /** `deltas` are the streamed text pieces; a JSON answer carries their concatenation. */
  | { kind: "text"; deltas: string[]; usage: WireUsage }
  | { kind: "error"; status: number; headers?: Record<string, string>; message: string };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The parsed JSON body, exactly as the SDK serialised it. */
  body: Record<string, unknown>;
}

export interface SimulatedApi {
  readonly requests: RecordedRequest[];
  /** The bodies of the streamed responses, as the chunks that went over the wire. */
  readonly streamedChunks: Uint8Array[][];
  /** The raw text of every streamed body, in the order served. */
  readonly streamedBodies: string[];
}

const CHUNK_BYTES = 7;
const CREATED = 1_767_225_600;

/** The JSON pieces a tool call's arguments stream in: cut inside keys and string values. */
export function argumentFragments(args: Record<string, unknown>): string[] {
  const text = JSON.stringify(args);
  const fragments: string[] = [];
  for (let at = 0; at < text.length; at += 5) fragments.push(text.slice(at, at + 5));
  return fragments;
}

// --- OpenAI Chat Completions -------------------------------------------------------------

function openAIUsage(usage: WireUsage) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function openAICompletion(turn: Extract<Turn, { kind: "tool_call" | "text" }>, index: number, model: string) {
  const message =
    turn.kind === "tool_call"
      ? {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [{ id: turn.id, type: "function", function: { name: turn.name, arguments: JSON.stringify(turn.args) } }],
        }
      : { role: "assistant", content: turn.deltas.join(""), refusal: null, annotations: [] };
  return {
    id: `chatcmpl-e2e-${index}`,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: turn.kind === "tool_call" ? "tool_calls" : "stop" }],
    usage: openAIUsage(turn.usage),
    service_tier: "default",
    system_fingerprint: "fp_e2e",
  };
}

function openAIStream(turn: Extract<Turn, { kind: "tool_call" | "text" }>, index: number, model: string): string {
  const chunk = (choices: object[], usage: object | null = null) => ({
    id: `chatcmpl-e2e-${index}`,
    object: "chat.completion.chunk",
    created: CREATED,
    model,
    service_tier: "default",
    system_fingerprint: "fp_e2e",
    choices,
    usage,
  });
  const delta = (value: object, finishReason: string | null = null) => ({ index: 0, delta: value, logprobs: null, finish_reason: finishReason });
  const chunks: object[] = [];
  if (turn.kind === "tool_call") {
    chunks.push(
      chunk([delta({ role: "assistant", content: null, tool_calls: [{ index: 0, id: turn.id, type: "function", function: { name: turn.name, arguments: "" } }], refusal: null })]),
    );
    for (const fragment of argumentFragments(turn.args)) chunks.push(chunk([delta({ tool_calls: [{ index: 0, function: { arguments: fragment } }] })]));
    chunks.push(chunk([delta({}, "tool_calls")]));
  } else {
    chunks.push(chunk([delta({ role: "assistant", content: "", refusal: null })]));
    for (const text of turn.deltas) chunks.push(chunk([delta({ content: text })]));
    chunks.push(chunk([delta({}, "stop")]));
  }
  // Asked for by stream_options.include_usage: a last chunk with no choices.
  chunks.push(chunk([], openAIUsage(turn.usage)));
  return openAISse(chunks);
}

function openAIError(turn: Extract<Turn, { kind: "error" }>) {
  const type = turn.status === 429 ? "rate_limit_exceeded" : turn.status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message: turn.message, type, param: null, code: type } };
}

/** One Messages stream event: its type and whatever else it carries. */
type SseEvent = { type: string; [field: string]: unknown };

// --- Anthropic Messages ------------------------------------------------------------------

function anthropicUsage(usage: WireUsage, outputTokens = usage.output) {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: outputTokens,
    service_tier: "standard",
  };
}

function anthropicMessage(turn: Extract<Turn, { kind: "tool_call" | "text" }>, index: number, model: string) {
  const content =
    turn.kind === "tool_call"
      ? [{ type: "tool_use", id: turn.id, name: turn.name, input: turn.args }]
      : [{ type: "text", text: turn.deltas.join("") }];
  return {
    id: `msg_e2e_${index}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.kind === "tool_call" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: anthropicUsage(turn.usage),
  };
}

function anthropicStream(turn: Extract<Turn, { kind: "tool_call" | "text" }>, index: number, model: string): string {
  const events: SseEvent[] = [
    {
      type: "message_start",
      message: {
        id: `msg_e2e_${index}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(turn.usage, 1),
      },
    },
  ];
  if (turn.kind === "tool_call") {
    events.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: turn.id, name: turn.name, input: {} } });
    events.push({ type: "ping" });
    events.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "" } });
    for (const fragment of argumentFragments(turn.args)) {
      events.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: fragment } });
    }
  } else {
    events.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    events.push({ type: "ping" });
    for (const text of turn.deltas) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  }
  events.push({ type: "content_block_stop", index: 0 });
  events.push({
    type: "message_delta",
    delta: { stop_reason: turn.kind === "tool_call" ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: turn.usage.output },
  });
  events.push({ type: "message_stop" });
  return anthropicSse(events);
}

function anthropicError(turn: Extract<Turn, { kind: "error" }>) {
  const type = turn.status === 429 ? "rate_limit_error" : turn.status === 529 ? "overloaded_error" : turn.status >= 500 ? "api_error" : "invalid_request_error";
  return { type: "error", error: { type, message: turn.message }, request_id: "req_e2e" };
}

// --- The handler ---------------------------------------------------------------------------

export interface SimulateOptions {
  /** The exact URL the SDK must POST to. */
  url: string;
  turns: Turn[];
  /** What the simulated API reports as the model that answered. */
  model: string;
}

/**
 * Answers the n-th request with the n-th turn. A request beyond the script is answered with a
 * 400 that names it (not retried, so the run fails at once and the test sees why).
 */
export function simulate(server: Server, provider: WireProvider, options: SimulateOptions): SimulatedApi {
  const api: SimulatedApi = { requests: [], streamedChunks: [], streamedBodies: [] };
  server.use(
    http.post(options.url, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      api.requests.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
      const index = api.requests.length;
      const turn = options.turns[index - 1];
      if (!turn) {
        return HttpResponse.json({ error: { message: `the simulated ${provider} API has no answer for request #${index}` } }, { status: 400 });
      }
      if (turn.kind === "error") {
        const errorBody = provider === "openai" ? openAIError(turn) : anthropicError(turn);
        return HttpResponse.json(errorBody, { status: turn.status, headers: turn.headers ?? {} });
      }
      if (body["stream"] === true) {
        const text = provider === "openai" ? openAIStream(turn, index, options.model) : anthropicStream(turn, index, options.model);
        const chunks = hostileChunks(text, CHUNK_BYTES);
        api.streamedBodies.push(text);
        api.streamedChunks.push(chunks);
        return sseResponse(streamOf(chunks));
      }
      return HttpResponse.json(provider === "openai" ? openAICompletion(turn, index, options.model) : anthropicMessage(turn, index, options.model));
    }),
  );
  return api;
}

/** True when some chunk boundary falls strictly inside the first occurrence of `needle`. */
export function cutInside(chunks: readonly Uint8Array[], body: string, needle: string): boolean {
  const encoder = new TextEncoder();
  const at = body.indexOf(needle);
  if (at < 0) throw new Error(`"${needle}" is not in the streamed body`);
  const start = encoder.encode(body.slice(0, at)).length;
  const end = start + encoder.encode(needle).length;
  let offset = 0;
  for (const chunk of chunks.slice(0, -1)) {
    offset += chunk.length;
    if (offset > start && offset < end) return true;
  }
  return false;
}
