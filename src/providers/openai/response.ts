/** Chat Completions responses (whole or streamed) → the normalised response. */
import { canonicalJson } from "../../canonical/index.js";
import type { LlmResponse, StopReason, ToolCall, Usage } from "../../contracts/index.js";
import type { ChatCompletionChunkWire, ChatCompletionWire, ToolCallDeltaWire, UsageWire } from "./wire.js";

/** Makes an id for a tool call the server sent without one; stable for a given call index. */
export type ToolCallIdSource = (position: number) => string;

export function fromChatCompletion(wire: ChatCompletionWire, makeId: ToolCallIdSource): LlmResponse {
  // `n` is never set, so there is one choice; take index 0 when servers number them.
  const choice = wire.choices.find((candidate) => (candidate.index ?? 0) === 0) ?? wire.choices[0]!;
  const toolCalls = (choice.message.tool_calls ?? []).map(
    (call, position): ToolCall => ({
      id: call.id || makeId(position),
      name: call.function.name,
      arguments: argumentsText(call.function.arguments),
    }),
  );
  const refusal = choice.message.refusal ?? "";
  const content = choice.message.content ?? "";
  return {
    id: wire.id ?? undefined,
    model: wire.model ?? undefined,
    text: content === "" ? refusal : content,
    toolCalls,
    stopReason: refusal === "" ? stopReasonOf(choice.finish_reason, toolCalls.length > 0) : "content_filter",
    usage: usageOf(wire.usage),
  };
}

/**
 * The arguments as JSON text. A string is kept byte for byte (the contract wants what the model
 * produced, malformed or not); an object (a compatible server's quirk) becomes canonical JSON;
 * absent or empty means a call without arguments.
 */
function argumentsText(value: string | Record<string, unknown> | null | undefined): string {
  if (value === null || value === undefined || value === "") return "{}";
  return typeof value === "string" ? value : canonicalJson(value);
}

function stopReasonOf(finishReason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (finishReason) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "content_filter";
    case "stop":
      // OpenAI itself answers "stop" when tool_choice forces a function, and several compatible
      // servers always do: a response carrying tool calls stopped to call them.
      return hasToolCalls ? "tool_calls" : "end";
    default:
      return hasToolCalls ? "tool_calls" : "other";
  }
}

/** A server that sends no usage leaves it unknown: zeros would price the call at $0. */
function usageOf(usage: UsageWire | null | undefined): Usage | null {
  const inputTokens = usage?.prompt_tokens;
  const outputTokens = usage?.completion_tokens;
  if (inputTokens === null || inputTokens === undefined || outputTokens === null || outputTokens === undefined) return null;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return { inputTokens, outputTokens, cachedInputTokens: Math.min(cached, inputTokens) };
}

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the stream said about its own completeness, for the caller to judge. */
export interface AssembledStream {
  response: LlmResponse;
  sawFinishReason: boolean;
  sawUsage: boolean;
}

/**
 * Folds streamed chunks into one response. Tool calls are assembled by their `index`, their
 * argument fragments concatenated as text (the SDK has already decoded the bytes, so a UTF-8
 * character split between network chunks arrives whole).
 */
export class ChatCompletionStreamAssembler {
  private id: string | undefined;
  private model: string | undefined;
  private text = "";
  private refusal = "";
  private finishReason: string | null | undefined;
  private sawFinishReason = false;
  private usage: UsageWire | undefined;
  private readonly toolCalls = new Map<number, PartialToolCall>();
  private lastToolCallKey: number | undefined;

  constructor(private readonly onTextDelta?: (delta: string) => void) {}

  add(chunk: ChatCompletionChunkWire): void {
    this.id ??= chunk.id ?? undefined;
    this.model ??= chunk.model ?? undefined;
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (delta?.content) {
        this.text += delta.content;
        this.onTextDelta?.(delta.content);
      }
      if (delta?.refusal) this.refusal += delta.refusal;
      for (const fragment of delta?.tool_calls ?? []) this.addToolCallFragment(fragment);
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        this.sawFinishReason = true;
      }
    }
  }

  private addToolCallFragment(fragment: ToolCallDeltaWire): void {
    const key = this.keyOf(fragment.index, fragment.id);
    let call = this.toolCalls.get(key);
    if (!call) {
      call = { id: "", name: "", arguments: "" };
      this.toolCalls.set(key, call);
    }
    this.lastToolCallKey = key;
    if (fragment.id && !call.id) call.id = fragment.id;
    const name = fragment.function?.name;
    // OpenAI sends the name once; some servers repeat it in every fragment.
    if (name && name !== call.name) call.name += name;
    const args = fragment.function?.arguments;
    if (typeof args === "string") call.arguments += args;
    else if (args) call.arguments += canonicalJson(args);
  }

  /** Servers that omit `index` are matched by id, or continue the call they last spoke of. */
  private keyOf(index: number | null | undefined, id: string | null | undefined): number {
    if (index !== null && index !== undefined) return index;
    if (id) {
      for (const [key, call] of this.toolCalls) if (call.id === id) return key;
      return this.toolCalls.size === 0 ? 0 : Math.max(...this.toolCalls.keys()) + 1;
    }
    return this.lastToolCallKey ?? 0;
  }

  finish(makeId: ToolCallIdSource): AssembledStream {
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([, call], position): ToolCall => ({
          id: call.id || makeId(position),
          name: call.name,
          arguments: argumentsText(call.arguments),
        }),
      );
    const refused = this.refusal !== "";
    return {
      response: {
        id: this.id,
        model: this.model,
        text: this.text === "" ? this.refusal : this.text,
        toolCalls,
        stopReason: refused ? "content_filter" : stopReasonOf(this.finishReason, toolCalls.length > 0),
        usage: usageOf(this.usage),
      },
      sawFinishReason: this.sawFinishReason,
      sawUsage: this.usage !== undefined,
    };
  }
}
