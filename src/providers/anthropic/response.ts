/** Messages API responses (whole or streamed) → the normalised response. */
import { canonicalJson } from "../../canonical/index.js";
import type { LlmResponse, StopReason, ToolCall, Usage } from "../../contracts/index.js";
import { jsonTextAt } from "../http/index.js";
import type { MessageWire, PartialUsageWire, StreamEvent } from "./wire.js";

/**
 * `body` is the response's text, from which each tool input is cut out as the server wrote it:
 * the numbers keep their spelling (`1.0`, a 20-digit integer), which a parsed object cannot
 * give back. The text is the API's serialisation of what the model produced, so spacing and key
 * order are the server's; a streamed call (input_json_delta) keeps the model's own fragments.
 * Without the body (a caller holding only the parsed message) the input is canonical JSON.
 */
export function fromMessage(wire: MessageWire, body?: string): LlmResponse {
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const [index, block] of wire.content.entries()) {
    if (block.type === "text" && "text" in block) text += block.text;
    else if (block.type === "tool_use" && "id" in block) {
      const raw = body === undefined ? undefined : jsonTextAt(body, ["content", index, "input"]);
      toolCalls.push({ id: block.id, name: block.name, arguments: raw ?? canonicalJson(block.input ?? {}) });
    }
    // thinking, redacted_thinking and server-tool blocks are not part of the contract (yet).
  }
  return {
    id: wire.id ?? undefined,
    model: wire.model ?? undefined,
    text,
    toolCalls,
    stopReason: stopReasonOf(wire.stop_reason),
    usage: usageOf(wire.usage),
  };
}

function stopReasonOf(stopReason: string | null | undefined): StopReason {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
      return "end";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "refusal":
      return "content_filter";
    default:
      // pause_turn (a server tool paused a long turn), null, or a reason newer than this code.
      return "other";
  }
}

/**
 * Anthropic counts `input_tokens` *after* the cache: tokens read from the cache and tokens
 * written to it are reported beside it, not inside it. The contract's inputTokens is the whole
 * prompt (as OpenAI reports it), so all three are added, and cachedInputTokens is the cache
 * reads, a subset of it. Cache writes (billed at 1.25x) stay priced as plain input.
 */
function usageOf(usage: PartialUsageWire | null | undefined): Usage | null {
  // A stream that never said how many tokens went in or out leaves the usage unknown, not 0.
  const input = usage?.input_tokens;
  const output = usage?.output_tokens;
  if (input === null || input === undefined || output === null || output === undefined) return null;
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
  return { inputTokens: input + cacheRead + cacheWrite, outputTokens: output, cachedInputTokens: cacheRead };
}

interface PartialBlock {
  kind: "text" | "tool_use";
  id: string;
  name: string;
  /** The tool input as announced by content_block_start ({} when it streams). */
  initialInput: unknown;
  json: string;
}

/** Folds stream events into one response; tool input JSON is assembled from its fragments. */
export class MessageStreamAssembler {
  private id: string | undefined;
  private model: string | undefined;
  private text = "";
  private stopReason: string | null | undefined;
  private usage: PartialUsageWire = {};
  private readonly blocks = new Map<number, PartialBlock>();
  sawMessageStop = false;

  constructor(private readonly onTextDelta?: (delta: string) => void) {}

  messageStart(event: StreamEvent<"message_start">): void {
    this.id = event.message.id ?? undefined;
    this.model = event.message.model ?? undefined;
    this.mergeUsage(event.message.usage);
  }

  blockStart(event: StreamEvent<"content_block_start">): void {
    const block = event.content_block;
    if (block.type === "text" && "text" in block) {
      this.blocks.set(event.index, { kind: "text", id: "", name: "", initialInput: undefined, json: "" });
      this.appendText(block.text);
    } else if (block.type === "tool_use" && "id" in block) {
      this.blocks.set(event.index, { kind: "tool_use", id: block.id, name: block.name, initialInput: block.input, json: "" });
    }
  }

  blockDelta(event: StreamEvent<"content_block_delta">): void {
    const delta = event.delta;
    if (delta.type === "text_delta" && "text" in delta) this.appendText(delta.text);
    else if (delta.type === "input_json_delta" && "partial_json" in delta) {
      const block = this.blocks.get(event.index);
      if (block?.kind === "tool_use") block.json += delta.partial_json;
    }
  }

  messageDelta(event: StreamEvent<"message_delta">): void {
    if (event.delta.stop_reason !== undefined) this.stopReason = event.delta.stop_reason;
    this.mergeUsage(event.usage);
  }

  finish(): LlmResponse {
    const toolCalls = [...this.blocks.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, block]) => block.kind === "tool_use")
      .map(([, block]): ToolCall => ({ id: block.id, name: block.name, arguments: toolArguments(block) }));
    return {
      id: this.id,
      model: this.model,
      text: this.text,
      toolCalls,
      stopReason: stopReasonOf(this.stopReason),
      usage: usageOf(this.usage),
    };
  }

  private appendText(text: string): void {
    if (text === "") return;
    this.text += text;
    this.onTextDelta?.(text);
  }

  /** message_delta's counts are cumulative, so a field it carries replaces the earlier one. */
  private mergeUsage(usage: PartialUsageWire | null | undefined): void {
    if (!usage) return;
    for (const [key, value] of Object.entries(usage) as [keyof PartialUsageWire, number | null | undefined][]) {
      if (value !== null && value !== undefined) this.usage[key] = value;
    }
  }
}

/**
 * The fragments as the model produced them, parsed or not (a stream cut at max_tokens leaves
 * malformed text, which the tool layer reports). Only when nothing streamed is the announced
 * input used, as canonical JSON: the API announces `{}` there, whose text cannot differ.
 */
function toolArguments(block: PartialBlock): string {
  return block.json === "" ? canonicalJson(block.initialInput ?? {}) : block.json;
}
