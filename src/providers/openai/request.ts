/** The normalised request → a Chat Completions request body. */
import type OpenAI from "openai";
import type { LlmRequest, Message } from "../../contracts/index.js";

export type ChatCompletionBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export type OpenAIDialect = "openai" | "openai-compatible";

/** Model defaults from the provider config; the request's own values win over them. */
export interface OpenAIRequestDefaults {
  model: string;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  dialect: OpenAIDialect;
}

export function toChatCompletionBody(request: LlmRequest, defaults: OpenAIRequestDefaults): ChatCompletionBody {
  const messages: WireMessage[] = [];
  if (request.system !== undefined) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(toWireMessage(message));

  const body: ChatCompletionBody = { model: request.model || defaults.model, messages };
  // OpenAI rejects an empty `tools` array ("[] is too short"), so omit it rather than send [].
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  const temperature = request.temperature ?? defaults.temperature;
  if (temperature !== undefined) body.temperature = temperature;
  const seed = request.seed ?? defaults.seed;
  if (seed !== undefined) body.seed = seed;
  const maxTokens = request.maxTokens ?? defaults.maxTokens;
  if (maxTokens !== undefined) {
    // OpenAI deprecated `max_tokens` and its reasoning models reject it; most compatible
    // servers only know `max_tokens`.
    if (defaults.dialect === "openai") body.max_completion_tokens = maxTokens;
    else body.max_tokens = maxTokens;
  }
  return body;
}

function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        // null, not "", beside tool calls: several compatible servers reject an empty string.
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case "tool":
      // Chat Completions has no error flag on a tool result; the content (written by the
      // tool layer) is what tells the model the call failed.
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}
