import { z } from "zod";

const PriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  output: z.number().nonnegative(),
});

export const LlmConfigSchema = z.strictObject({
  provider: z.enum(["openai", "anthropic", "openai-compatible", "scripted"]),
  model: z.string().min(1).optional(),
  api_key: z.string().optional(),
  base_url: z.string().url().optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  /** Seconds before one model call times out. */
  timeout: z.number().positive().optional(),
  max_retries: z.number().int().min(0).max(10).default(2),
  stream: z.boolean().default(false),
  /** For `provider: scripted`: the script file, relative to the config file. */
  script: z.string().optional(),
  /** Price overrides in US dollars per million tokens, by model name. */
  prices: z.record(z.string(), PriceSchema).optional(),
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

export const ToolEntrySchema = z.union([
  z.string().min(1),
  z.strictObject({
    name: z.string().min(1),
    risk: z.enum(["safe", "moderate", "destructive"]).optional(),
    read_only: z.boolean().optional(),
    requires_approval: z.union([z.boolean(), z.string(), z.array(z.string()).min(1)]).optional(),
    /** Seconds a decision may take. */
    approval_timeout: z.number().positive().optional(),
  }),
]);
export type ToolEntry = z.infer<typeof ToolEntrySchema>;

export const AgentConfigSchema = z.strictObject({
  name: z.string().min(1),
  system_prompt: z.string().optional(),
  max_steps: z.number().int().positive().default(10),
  llm: LlmConfigSchema,
  tools: z.array(ToolEntrySchema).default([]),
  /** Folder the file tools are confined to, relative to the config file. */
  workspace: z.string().optional(),
  /** Files search_docs indexes, relative to the config file. */
  documents: z.array(z.string()).default([]),
  store: z.strictObject({ path: z.string().optional() }).default({}),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
