import { z } from "zod";
import { StopReasonSchema } from "./model.js";

const ToolCallEntrySchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** An object, or raw text (to script a model that emits malformed arguments). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
});

const UsageEntrySchema = z.strictObject({
  input_tokens: z.number().int().nonnegative().default(0),
  output_tokens: z.number().int().nonnegative().default(0),
  cached_input_tokens: z.number().int().nonnegative().default(0),
});

const ErrorKindSchema = z.enum(["auth", "not_found", "bad_request", "rate_limited", "server", "timeout", "connection", "invalid_response"]);

export const ResponseEntrySchema = z
  .strictObject({
    text: z.string().optional(),
    tool_calls: z.array(ToolCallEntrySchema).optional(),
    stop_reason: StopReasonSchema.optional(),
    usage: UsageEntrySchema.optional(),
    /** A fault instead of an answer: the provider fails this call the way a real one would. */
    error: z
      .strictObject({
        kind: ErrorKindSchema.optional(),
        status: z.number().int().optional(),
        message: z.string().default("injected provider fault"),
        retry_after_ms: z.number().nonnegative().optional(),
      })
      .optional(),
  })
  .refine((entry) => entry.text !== undefined || entry.tool_calls !== undefined || entry.error !== undefined, {
    message: "a response needs text, tool_calls or error",
  })
  .refine(
    (entry) => {
      const ids = (entry.tool_calls ?? []).flatMap((call) => (call.id === undefined ? [] : [call.id]));
      return new Set(ids).size === ids.length;
    },
    { message: "tool call ids must be unique within a response", path: ["tool_calls"] },
  );
export type ResponseEntry = z.infer<typeof ResponseEntrySchema>;

export const MatchSchema = z.strictObject({
  user_contains: z.string().optional(),
  last_message_contains: z.string().optional(),
  tool_result_contains: z.string().optional(),
  after_tool: z.string().optional(),
  system_contains: z.string().optional(),
  step: z.number().int().positive().optional(),
});
export type Match = z.infer<typeof MatchSchema>;

export const RuleSchema = z.strictObject({
  when: MatchSchema,
  respond: ResponseEntrySchema,
  /** How many times the rule may answer; unlimited when absent. */
  times: z.number().int().positive().optional(),
});
export type Rule = z.infer<typeof RuleSchema>;

/**
 * A script with no responses and no rules is valid: it says the model must not be called
 * (a case that expects an input guardrail to stop the turn), and any call fails loudly.
 */
export const ScriptSchema = z.strictObject({
  model: z.string().default("scripted"),
  /** Answered in order, one per model call, after rules that match. */
  responses: z.array(ResponseEntrySchema).default([]),
  /** Checked first, in order; the first whose `when` holds answers. */
  rules: z.array(RuleSchema).default([]),
  /**
   * Responses the run never reached are an error by default (the agent stopped before the
   * script expected); true says the script holds spare responses on purpose.
   */
  allow_unused: z.boolean().default(false),
});
export type Script = z.infer<typeof ScriptSchema>;
export type ScriptInput = z.input<typeof ScriptSchema>;
