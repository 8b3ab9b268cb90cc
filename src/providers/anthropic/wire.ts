/**
 * What we accept from the Messages API. Block and event types we do not use (thinking,
 * server tools, citations, ping, ...) pass through unread, so a new API feature does not
 * break old code; the blocks we do read are checked field by field.
 */
import { z } from "zod";

const tokenCount = z.number().int().nonnegative();

export const UsageWire = z.object({
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  cache_read_input_tokens: tokenCount.nullish(),
  cache_creation_input_tokens: tokenCount.nullish(),
});
export type UsageWire = z.infer<typeof UsageWire>;
/** Streams report usage in pieces: message_start has the input side, message_delta the rest. */
export const PartialUsageWire = UsageWire.partial().extend({
  input_tokens: tokenCount.nullish(),
  output_tokens: tokenCount.nullish(),
});
export type PartialUsageWire = z.infer<typeof PartialUsageWire>;

const TextBlockWire = z.object({ type: z.literal("text"), text: z.string() });
const ToolUseBlockWire = z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string(), input: z.unknown() });
const OtherBlockWire = z.object({ type: z.string().refine((type) => type !== "text" && type !== "tool_use") });

export const MessageWire = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(z.union([TextBlockWire, ToolUseBlockWire, OtherBlockWire])),
  stop_reason: z.string().nullish(),
  usage: UsageWire,
});
export type MessageWire = z.infer<typeof MessageWire>;

/** Stream events by type; a type missing here is ignored (ping, and whatever comes next). */
export const StreamEventWire = {
  message_start: z.object({
    message: z.object({ id: z.string().nullish(), model: z.string().nullish(), usage: PartialUsageWire.nullish() }),
  }),
  content_block_start: z.object({
    index: z.number().int().nonnegative(),
    content_block: z.union([TextBlockWire, ToolUseBlockWire, OtherBlockWire]),
  }),
  content_block_delta: z.object({
    index: z.number().int().nonnegative(),
    delta: z.union([
      z.object({ type: z.literal("text_delta"), text: z.string() }),
      z.object({ type: z.literal("input_json_delta"), partial_json: z.string() }),
      z.object({ type: z.string().refine((type) => type !== "text_delta" && type !== "input_json_delta") }),
    ]),
  }),
  content_block_stop: z.object({ index: z.number().int().nonnegative() }),
  message_delta: z.object({
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: PartialUsageWire.nullish(),
  }),
  message_stop: z.object({}),
} as const;
export type StreamEventType = keyof typeof StreamEventWire;
export type StreamEvent<T extends StreamEventType> = z.infer<(typeof StreamEventWire)[T]>;
