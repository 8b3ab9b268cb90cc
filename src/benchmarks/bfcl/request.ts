/** The one model request BFCL makes per single-turn entry, in either mode. */
import type { LlmRequest, LlmResponse, Message } from "../../contracts/index.js";
import type { BfclEntry } from "./dataset.js";
import type { BfclMode, ModelOutput } from "./evaluate-entry.js";
import { systemPrompt, withLanguageHints } from "./prompt.js";
import { toolsFor } from "./tools.js";

export function requestFor(entry: BfclEntry, mode: BfclMode, model: string): LlmRequest {
  const turn = entry.turns[0] ?? [];
  const functions = withLanguageHints(entry.functionsPy, entry.category);
  let system: string | undefined;
  const messages: Message[] = [];
  turn.forEach((message, index) => {
    if (index === 0 && message.role === "system") system = message.content;
    else if (message.role === "assistant") messages.push({ role: "assistant", content: message.content, toolCalls: [] });
    else if (message.role === "system") messages.push({ role: "system", content: message.content });
    else messages.push({ role: "user", content: message.content });
  });
  if (mode === "prompt") {
    // system_prompt_pre_processing_chat_model: BFCL's prompt first, the entry's own system text after it.
    const prompt = systemPrompt(functions);
    return { model, system: system === undefined ? prompt : `${prompt}\n\n${system}`, messages, tools: [] };
  }
  return { model, ...(system !== undefined ? { system } : {}), messages, tools: toolsFor(functions) };
}

/** The OpenAI handler's result: the calls as `{name: arguments}` when there are any, else the text. */
export function outputOf(response: LlmResponse, mode: BfclMode): ModelOutput {
  if (mode === "prompt") return { mode, text: response.text };
  if (response.toolCalls.length === 0) return { mode, output: response.text };
  return { mode, output: response.toolCalls.map((call) => ({ [call.name]: call.arguments })) };
}

export function rawOf(output: ModelOutput): unknown {
  return output.mode === "prompt" ? output.text : output.output;
}
