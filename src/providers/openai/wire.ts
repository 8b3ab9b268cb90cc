/**
 * What we accept from a Chat Completions endpoint. Deliberately looser than OpenAI's own
 * schema (nullish almost everywhere, unknown fields ignored) because OpenAI-compatible servers
 * (vLLM, Ollama, LiteLLM, Groq, ...) drop or null fields OpenAI always sends; strict only where
 * a missing field means we cannot build a response at all.
 */
import { z } from "zod";

const tokenCount = z.number().int().nonnegative().nullish();

export const UsageWire = z.object({
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  prompt_tokens_details: z.object({ cached_tokens: tokenCount }).nullish(),
});
export type UsageWire = z.infer<typeof UsageWire>;

/** Some compatible servers send the arguments already parsed, as an object. */
const ArgumentsWire = z.union([z.string(), z.record(z.string(), z.unknown())]).nullish();

export const ChatCompletionWire = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string(), arguments: ArgumentsWire }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: UsageWire.nullish(),
});
export type ChatCompletionWire = z.infer<typeof ChatCompletionWire>;

export const ToolCallDeltaWire = z.object({
  index: z.number().int().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: ArgumentsWire }).nullish(),
});
export type ToolCallDeltaWire = z.infer<typeof ToolCallDeltaWire>;

export const ChatCompletionChunkWire = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(ToolCallDeltaWire).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: UsageWire.nullish(),
});
export type ChatCompletionChunkWire = z.infer<typeof ChatCompletionChunkWire>;
