/** The normalised request → an Anthropic Messages request body. */
import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantMessage, LlmRequest, ToolMessage } from "../../contracts/index.js";

export type MessagesBody = Anthropic.Messages.MessageCreateParamsNonStreaming;
type WireMessage = Anthropic.Messages.MessageParam;
type ToolResultBlock = Anthropic.Messages.ToolResultBlockParam;

/** The Messages API requires max_tokens; this is used when neither request nor config sets one. */
export const DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicRequestDefaults {
  model: string;
  maxTokens?: number;
}

export function toMessagesBody(request: LlmRequest, defaults: AnthropicRequestDefaults): MessagesBody {
  // System text that opens the conversation goes to the top-level `system`; a system message
  // further on is sent where it stands (API version 2026-10-21 accepts role "system" in
  // `messages`), because it applies from that point on.
  const systemTexts: string[] = request.system !== undefined ? [request.system] : [];
  const messages: WireMessage[] = [];
  let pendingResults: ToolResultBlock[] = [];
  const flushResults = (): void => {
    // All results answering one assistant turn travel in one user message: the API wants
    // every tool_use answered by the very next message.
    if (pendingResults.length > 0) messages.push({ role: "user", content: pendingResults });
    pendingResults = [];
  };
  for (const message of request.messages) {
    if (message.role === "tool") {
      pendingResults.push(toToolResult(message));
      continue;
    }
    flushResults();
    if (message.role === "system") {
      if (messages.length === 0) systemTexts.push(message.content);
      else messages.push({ role: "system", content: message.content });
    } else if (message.role === "user") messages.push({ role: "user", content: message.content });
    else messages.push(toAssistantMessage(message));
  }
  flushResults();

  const body: MessagesBody = {
    model: request.model || defaults.model,
    max_tokens: request.maxTokens ?? defaults.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
  };
  if (systemTexts.length > 0) body.system = systemTexts.join("\n\n");
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema,
    }));
  }
  // No temperature (the model refuses it before calling: see model.ts) and no seed, which has
  // no Anthropic counterpart and stays in the normalised request (and its key) only.
  return body;
}

function toAssistantMessage(message: AssistantMessage): WireMessage {
  if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
  const content: Anthropic.Messages.ContentBlockParam[] = [];
  // The API rejects an empty text block.
  if (message.content !== "") content.push({ type: "text", text: message.content });
  for (const call of message.toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInputOf(call.arguments) });
  }
  return { role: "assistant", content };
}

/**
 * `tool_use.input` must be a JSON object, but the model may have produced arguments that are
 * not one (truncated at max_tokens, or plain malformed). We send `{}` then: inventing a field
 * to carry the raw text would show the model a call that violates its own schema, and the
 * tool's error result, which follows in the next message, already tells it what was wrong.
 * The exact text the model produced stays in the normalised log.
 */
export function toolInputOf(argumentsText: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsText);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return {};
}

function toToolResult(message: ToolMessage): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: message.toolCallId, content: message.content };
  if (message.isError) block.is_error = true;
  return block;
}
