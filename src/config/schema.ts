import { z } from "zod";
import { compileLinear, unsafeRegexReason } from "../patterns/index.js";

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
  /** Interrupted attempts (the process died during the call) one step survives; default 3 (docs/durability.md). */
  max_interruptions: z.number().int().min(1).max(100).optional(),
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
    /** Seconds one call may take before it fails with kind `timeout`. */
    timeout: z.number().positive().optional(),
  }),
  /** A module of the user's own tools (made with defineTool), relative to the config file. */
  z.strictObject({
    module: z.string().min(1),
    /** Seconds one call of any of its tools may take. */
    timeout: z.number().positive().optional(),
  }),
]);
export type ToolEntry = z.infer<typeof ToolEntrySchema>;

const RegexSchema = z.string().superRefine((pattern, context) => {
  try {
    new RegExp(pattern, "iu");
  } catch (error) {
    context.addIssue({ code: "custom", message: `not a valid regular expression: ${(error as Error).message}` });
    return;
  }
  // Matched in linear time when it can be; otherwise (lookarounds) by RegExp, and then checked.
  const unsafe = compileLinear(pattern, "iu") ? undefined : unsafeRegexReason(pattern);
  if (unsafe) context.addIssue({ code: "custom", message: `pattern ${JSON.stringify(pattern)} refused: ${unsafe}` });
});

/** Argument patterns: a string is a glob for string arguments (`**\/.env`); other values must be equal. */
const ArgsMatchSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const PolicyRuleSchema = z.strictObject({
  /** Tool name glob; every tool when absent. */
  tool: z.string().default("*"),
  /** Matches only tools of this risk (e.g. require approval for every destructive tool). */
  risk: z.enum(["safe", "moderate", "destructive"]).optional(),
  args: ArgsMatchSchema.optional(),
  action: z.enum(["allow", "deny", "require_approval"], {
    error: (issue) => `unknown action ${JSON.stringify(issue.input)}: use allow, deny or require_approval`,
  }),
  /** Roles that must all approve, for require_approval; any one approver when absent. */
  roles: z.array(z.string().min(1)).min(1).optional(),
  reason: z.string().optional(),
}).refine((rule) => rule.roles === undefined || rule.action === "require_approval", {
  message: "roles only apply to action require_approval",
  path: ["roles"],
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

export const TrustRuleSchema = z.strictObject({ tool: z.string().default("*"), args: ArgsMatchSchema.optional() });
export type TrustRule = z.infer<typeof TrustRuleSchema>;

const LimitSchema = z.strictObject({
  max: z.number().int().nonnegative(),
  /** Window in seconds on the run clock; the whole run when absent. */
  per: z.number().positive().optional(),
});
export type Limit = z.infer<typeof LimitSchema>;

export const GuardrailsSchema = z.strictObject({
  input: z
    .strictObject({
      max_length: z.number().int().positive().optional(),
      prompt_injection: z.boolean().default(false),
      /** Regular expressions (case-insensitive) that block a user message before any model call. */
      block: z.array(RegexSchema).default([]),
    })
    .default({ prompt_injection: false, block: [] }),
  output: z
    .strictObject({
      block: z.array(RegexSchema).default([]),
      warn: z.array(RegexSchema).default([]),
      /**
       * Replace text that looks like a credential (API keys, bearer tokens, private keys) with
       * [redacted] in every event the run records. false keeps such text; the values of the keys
       * the config names are removed either way.
       */
      redact_secrets: z.boolean().default(true),
      redact: z.array(RegexSchema).default([]),
    })
    .default({ block: [], warn: [], redact_secrets: true, redact: [] }),
});
export type GuardrailsConfig = z.infer<typeof GuardrailsSchema>;

export const SubAgentSchema = z.strictObject({
  /** The child agent's config file, relative to this one. */
  config: z.string(),
  description: z.string().optional(),
  /** Mock script for the child when the parent runs with --mock. */
  mock: z.string().optional(),
});

export const DocumentEntrySchema = z.union([
  z.string().min(1),
  z.strictObject({
    /** A file or glob. */
    path: z.string().min(1),
    /** Default: from the extension (.md markdown, .jsonl JSON Lines, anything else text). */
    format: z.enum(["markdown", "text", "jsonl"]).optional(),
    /** JSON Lines: the field with the text (default "text") and the title (default "title"). */
    text_field: z.string().min(1).optional(),
    title_field: z.string().min(1).optional(),
    /** JSON Lines: the field naming each record (default "id"; without one, its line number). */
    id_field: z.string().min(1).optional(),
    /** Tags added to every document of this entry, for filters. */
    tags: z.array(z.string().min(1)).optional(),
  }),
]);
export type DocumentEntry = z.infer<typeof DocumentEntrySchema>;

const FilterValue = z.union([z.string(), z.number(), z.boolean()]);

export const RetrievalConfigSchema = z
  .strictObject({
    /** The folder document paths (and so chunk ids) are named relative to, relative to the config file. Default: the config's folder. */
    root: z.string().min(1).optional(),
    /** tool (default): only search_docs retrieves; augment: every user turn retrieves before its model call. */
    mode: z.enum(["tool", "augment"]).default("tool"),
    /** Chunks put into the request per turn (augment). */
    top_k: z.number().int().min(1).max(50).default(3),
    /** Chunks scoring below this are never returned (augment and search_docs). */
    min_score: z.number().nonnegative().optional(),
    /** Metadata every retrieval must match: path (glob), tags (all), title (contains), or a front-matter field (equals). */
    filter: z.record(z.string().min(1), z.union([FilterValue, z.array(FilterValue).min(1)])).optional(),
    chunking: z
      .strictObject({
        strategy: z.enum(["markdown", "paragraph", "sentence", "fixed"]).default("markdown"),
        max_chars: z.number().int().positive().optional(),
        size: z.number().int().positive().optional(),
        overlap: z.number().int().nonnegative().optional(),
      })
      .refine((chunking) => chunking.overlap === undefined || chunking.overlap < (chunking.size ?? 800), {
        message: "overlap must be smaller than size",
        path: ["overlap"],
      })
      .optional(),
    bm25: z
      .strictObject({
        k1: z.number().nonnegative().default(1.2),
        b: z.number().min(0).max(1).default(0.75),
        /** true: a built-in English list; or your own words. */
        stopwords: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
        stemmer: z.enum(["none", "english"]).default("none"),
      })
      .optional(),
    /** Augment: the system prompt, with {{system}} (the agent's own) and {{context}} (the numbered passages). */
    template: z.string().min(1).optional(),
  });
export type RetrievalConfig = z.infer<typeof RetrievalConfigSchema>;

export const AgentConfigSchema = z.strictObject({
  name: z.string().min(1),
  system_prompt: z.string().optional(),
  max_steps: z.number().int().positive().default(10),
  llm: LlmConfigSchema,
  tools: z.array(ToolEntrySchema).default([]),
  /** Folder the file tools are confined to, relative to the config file. */
  workspace: z.string().optional(),
  /** Files search_docs and augmentation index, relative to the config file (see docs/retrieval.md). */
  documents: z.array(DocumentEntrySchema).default([]),
  /** Chunking, BM25 and filters for the documents; `mode: augment` retrieves before each turn's model call. */
  retrieval: RetrievalConfigSchema.optional(),
  store: z
    .strictObject({
      path: z.string().optional(),
      /** normal (default): survives a process crash; full: survives power loss too (slower commits). See docs/durability.md. */
      synchronous: z.enum(["normal", "full"]).optional(),
    })
    .default({}),
  /** chat/plan: read-only tools only; act: approvals where required; auto: trust rules skip them; yolo: no approvals, no rate limits. */
  mode: z.enum(["chat", "plan", "act", "auto", "yolo"]).default("act"),
  /** First match wins. */
  policy: z.array(PolicyRuleSchema).default([]),
  /** In auto mode, calls matching a trust rule need no approval. */
  trust: z.array(TrustRuleSchema).default([]),
  rate_limits: z
    .strictObject({ run: LimitSchema.optional(), tools: z.record(z.string(), LimitSchema).default({}) })
    .default({ tools: {} }),
  guardrails: GuardrailsSchema.optional(),
  /**
   * Recorded HTTP traffic for `retrace run` (docs/cassettes.md): a cassette file (.json) or a
   * folder, relative to this file. --record, --replay and --cassette-mode override it.
   */
  cassette: z
    .union([
      z.string().min(1),
      z.strictObject({
        path: z.string().min(1),
        mode: z.enum(["live", "record", "auto", "replay", "update"]).default("replay"),
        timing: z.union([z.enum(["instant", "recorded"]), z.number().positive()]).optional(),
        /** JSON body fields left out of the request key (`metadata.user_id`, `messages.*.cache_control`). */
        ignore_body_fields: z.array(z.string().min(1)).default([]),
        /** Patterns redacted from everything the cassette stores. */
        redact: z.array(RegexSchema).default([]),
      }),
    ])
    .optional(),
  /** Agents this one may call as tools, by tool name. */
  agents: z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), SubAgentSchema).default({}),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
