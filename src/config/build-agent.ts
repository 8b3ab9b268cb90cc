import { resolve } from "node:path";
import { subAgentTool, type AgentDefinition } from "../agent/index.js";
import { Guardrails, PolicyGate, type Approver } from "../policy/index.js";
import { ConfigError } from "../errors/index.js";
import { nearest } from "../text/index.js";
import { immutable, type JsonValue } from "../canonical/index.js";
import { createModel } from "../providers/index.js";
import { ScriptedModel } from "../providers/scripted/index.js";
import { type LanguageModel, type Usage } from "../contracts/index.js";
import { costOf } from "../providers/pricing/index.js";
import { createBuiltinTool } from "../tools/builtin/index.js";
import type { AnyTool } from "../tools/index.js";
import { loadConfig, type LoadedConfig } from "./load.js";
import { loadToolModules } from "./tool-modules.js";
import { PROVIDER_KEY_VARIABLES, redactSecrets, secretValues } from "../redaction/index.js";
import type { AgentConfig, ToolEntry } from "./schema.js";
import { Retriever, type DocumentSource } from "../retrieval/index.js";

export interface BuildOptions {
  /** A mock script (file path or model) that replaces the configured provider. */
  mock?: string | ScriptedModel;
  /** A model to use instead of the configured one (tests, replay). */
  model?: LanguageModel;
  /** Extra tools defined in code, added after the configured ones. */
  tools?: readonly AnyTool[];
  /** Stream model text as it arrives (overrides llm.stream). */
  stream?: boolean;
  fetch?: typeof fetch;
  /**
   * Every model request is answered without the network (a cassette in replay): an API key the
   * config asks for is not needed, and a placeholder stands in when it is missing.
   */
  keyless?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  /** Decides approvals while the run waits (e.g. `--approve prompt`); without one the run pauses. */
  approver?: Approver;
  /**
   * The workspace folder (read_file, list_dir, write_file) of each agent in the tree — the top
   * agent and every sub-agent — given its config and its configured folder. Default: the
   * configured folder. Evals use it to give every agent a temp copy of its workspace.
   */
  workspaceFor?: (loaded: LoadedConfig, configured: string) => string;
  /**
   * Replaces each agent's model once built — the top agent's and every sub-agent's — e.g. by a
   * replay model that keeps the configured model's identity. Pass `keyless` with it when the
   * replaced model never sends a request, so that no API key is needed.
   */
  modelFor?: (configured: LanguageModel, loaded: LoadedConfig) => LanguageModel;
  /** Replaces each configured tool of every agent in the tree (sub-agents aside), e.g. by one that serves recorded results. */
  toolFor?: (tool: AnyTool, loaded: LoadedConfig) => AnyTool;
}

const MAX_AGENT_DEPTH = 5;

/** The key a keyless build hands the SDK: it only ever reaches a cassette, which keys no credentials. */
const KEYLESS_PLACEHOLDER = "retrace-cassette-replay";

async function buildModel(loaded: LoadedConfig, options: BuildOptions): Promise<LanguageModel> {
  if (options.model) return options.model;
  if (options.mock) return typeof options.mock === "string" ? ScriptedModel.fromFile(options.mock) : options.mock;
  const { llm } = loaded.config;
  if (llm.provider === "scripted") {
    if (!llm.script) throw new ConfigError("llm.script is required for provider scripted (or pass --mock)", { file: loaded.file, path: "llm.script" });
    return ScriptedModel.fromFile(resolve(loaded.baseDir, llm.script));
  }
  return createModel({
    provider: llm.provider,
    model: llm.model,
    apiKey: llm.api_key || (options.keyless ? KEYLESS_PLACEHOLDER : undefined),
    apiKeyVariable: llm.api_key || !options.keyless ? loaded.missingEnv.get("llm.api_key") : undefined,
    baseUrl: llm.base_url,
    temperature: llm.temperature,
    maxTokens: llm.max_tokens,
    seed: llm.seed,
    timeoutMs: llm.timeout === undefined ? undefined : llm.timeout * 1000,
    stream: options.stream ?? llm.stream,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    env: options.env ?? process.env,
    file: loaded.file,
  });
}

function applyEntry(tool: AnyTool, entry: ToolEntry): AnyTool {
  if (typeof entry === "string" || "module" in entry) return tool;
  return {
    ...tool,
    ...(entry.risk !== undefined ? { risk: entry.risk } : {}),
    ...(entry.read_only !== undefined ? { readOnly: entry.read_only } : {}),
    ...(entry.requires_approval !== undefined ? { requiresApproval: entry.requires_approval } : {}),
    ...(entry.approval_timeout !== undefined ? { approvalTimeoutMs: entry.approval_timeout * 1000 } : {}),
    ...(entry.timeout !== undefined ? { timeoutMs: entry.timeout * 1000 } : {}),
  };
}

/** The agent's one retriever (search_docs and augmentation share its index), or none without documents. */
function buildRetriever(loaded: LoadedConfig): Retriever | undefined {
  const { config, baseDir, file } = loaded;
  const settings = config.retrieval;
  if (config.documents.length === 0) {
    if (settings?.mode === "augment") throw new ConfigError("retrieval.mode augment needs documents to retrieve from (add documents: [...])", { file, path: "documents" });
    return undefined;
  }
  const documents: DocumentSource[] = config.documents.map((entry) =>
    typeof entry === "string"
      ? resolve(baseDir, entry)
      : {
          path: resolve(baseDir, entry.path),
          ...(entry.format ? { format: entry.format } : {}),
          ...(entry.text_field ? { textField: entry.text_field } : {}),
          ...(entry.title_field ? { titleField: entry.title_field } : {}),
          ...(entry.id_field ? { idField: entry.id_field } : {}),
          ...(entry.tags ? { tags: entry.tags } : {}),
        },
  );
  const chunking = settings?.chunking;
  const bm25 = settings?.bm25;
  return new Retriever({
    documents,
    baseDir: resolve(baseDir, settings?.root ?? "."),
    ...(chunking
      ? {
          chunking: {
            strategy: chunking.strategy,
            ...(chunking.max_chars !== undefined ? { maxChars: chunking.max_chars } : {}),
            ...(chunking.size !== undefined ? { size: chunking.size } : {}),
            ...(chunking.overlap !== undefined ? { overlap: chunking.overlap } : {}),
          },
        }
      : {}),
    ...(bm25 ? { bm25: { k1: bm25.k1, b: bm25.b, stopwords: bm25.stopwords, stemmer: bm25.stemmer } } : {}),
    ...(settings?.filter ? { filter: settings.filter } : {}),
  });
}

function buildTools(
  loaded: LoadedConfig,
  extra: readonly AnyTool[],
  workspaceFor: BuildOptions["workspaceFor"] | undefined,
  fromModules: ReadonlyMap<number, AnyTool[]>,
  retriever?: Retriever,
): AnyTool[] {
  const { config, baseDir, file } = loaded;
  const configured = resolve(baseDir, config.workspace ?? "workspace");
  const workspace = workspaceFor ? workspaceFor(loaded, configured) : configured;
  const extraByName = new Map(extra.map((tool) => [tool.name, tool]));
  const tools: AnyTool[] = [];
  for (const [index, entry] of config.tools.entries()) {
    const modular = fromModules.get(index);
    if (modular) {
      tools.push(...modular);
      continue;
    }
    if (typeof entry === "object" && "module" in entry) continue;
    const name = typeof entry === "string" ? entry : entry.name;
    const fromCode = extraByName.get(name);
    if (fromCode) {
      tools.push(applyEntry(fromCode, entry));
      extraByName.delete(name);
      continue;
    }
    try {
      const tool = createBuiltinTool(name, {
        workspace,
        documents: [],
        baseDir,
        ...(retriever ? { search: { retriever, ...(config.retrieval?.min_score !== undefined ? { minScore: config.retrieval.min_score } : {}) } } : {}),
      });
      tools.push(applyEntry(tool, entry));
    } catch (error) {
      throw new ConfigError((error as Error).message, { file, path: `tools[${index}]` });
    }
  }
  tools.push(...extraByName.values());
  return tools;
}

export function configCost(config: AgentConfig): (model: string, usage: Usage) => number | null {
  const overrides = Object.fromEntries(
    Object.entries(config.llm.prices ?? {}).map(([model, price]) => [
      model,
      { input: price.input, output: price.output, ...(price.cached_input !== undefined ? { cachedInput: price.cached_input } : {}) },
    ]),
  );
  return (model, usage) => costOf(model, usage, overrides);
}

function buildGovernance(loaded: LoadedConfig, approver: Approver | undefined): Pick<AgentDefinition, "gate" | "guardrails"> {
  const { config } = loaded;
  const guardrails = config.guardrails
    ? new Guardrails({
        input: {
          ...(config.guardrails.input.max_length !== undefined ? { maxLength: config.guardrails.input.max_length } : {}),
          promptInjection: config.guardrails.input.prompt_injection,
          block: config.guardrails.input.block,
        },
        output: {
          block: config.guardrails.output.block,
          warn: config.guardrails.output.warn,
          redact: config.guardrails.output.redact,
        },
      })
    : undefined;
  const limit = (value: { max: number; per?: number | undefined }) => ({ max: value.max, ...(value.per !== undefined ? { perMs: value.per * 1000 } : {}) });
  const gate = new PolicyGate({
    mode: config.mode,
    policy: config.policy,
    trust: config.trust,
    rateLimits: {
      ...(config.rate_limits.run ? { run: limit(config.rate_limits.run) } : {}),
      tools: Object.fromEntries(Object.entries(config.rate_limits.tools).map(([name, value]) => [name, limit(value)])),
    },
    ...(guardrails ? { guardrails } : {}),
    ...(approver ? { approver } : {}),
  });
  return { gate, ...(guardrails ? { guardrails } : {}) };
}

async function buildSubAgents(loaded: LoadedConfig, options: BuildOptions, depth: number, secrets: readonly string[]): Promise<AnyTool[]> {
  const tools: AnyTool[] = [];
  for (const [name, entry] of Object.entries(loaded.config.agents)) {
    if (depth >= MAX_AGENT_DEPTH) {
      throw new ConfigError(`sub-agents nest deeper than ${MAX_AGENT_DEPTH} levels (is there a cycle?)`, { file: loaded.file, path: `agents.${name}` });
    }
    const childLoaded = loadConfig(resolve(loaded.baseDir, entry.config), options.env ?? process.env);
    const childMock = options.mock !== undefined ? entry.mock : undefined;
    if (options.mock !== undefined && childMock === undefined && childLoaded.config.llm.provider !== "scripted") {
      throw new ConfigError(`under --mock, sub-agent ${name} needs a mock script (agents.${name}.mock)`, { file: loaded.file, path: `agents.${name}.mock` });
    }
    const { mock: _parentMock, model: _parentModel, tools: _parentTools, ...inherited } = options;
    const child = await buildAgentAt(childLoaded, { ...inherited, ...(childMock ? { mock: resolve(loaded.baseDir, childMock) } : {}) }, depth + 1, secrets);
    tools.push(subAgentTool(name, child, entry.description));
  }
  return tools;
}

export async function buildAgent(loaded: LoadedConfig, options: BuildOptions = {}): Promise<AgentDefinition> {
  return buildAgentAt(loaded, options, 0, []);
}

/**
 * The key values this agent's runs must never record: those of its config's secret-named keys
 * (`api_key`, resolved), of the secret-named variables it refers to, of the provider variables,
 * and of every agent above it (a parent's key may reach a child in its task).
 */
function knownSecrets(loaded: LoadedConfig, options: BuildOptions, inherited: readonly string[]): string[] {
  const env = options.env ?? process.env;
  const fromEnv = PROVIDER_KEY_VARIABLES.flatMap((name) => (env[name] ? [env[name]] : []));
  return [...new Set([...inherited, ...secretValues(loaded.config), ...(loaded.secrets ?? []), ...fromEnv])].sort();
}

/** What the schema cannot see: names that must refer to tools the agent really has. */
function checkToolNames(loaded: LoadedConfig, tools: readonly AnyTool[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new ConfigError(`two tools are named "${tool.name}" (check tools and agents)`, { file: loaded.file, path: "tools" });
    }
    seen.add(tool.name);
  }
  for (const name of Object.keys(loaded.config.rate_limits.tools)) {
    if (seen.has(name)) continue;
    const suggestion = nearest(name, [...seen]);
    throw new ConfigError(`no tool named "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; a limit on it would never apply`, {
      file: loaded.file,
      path: `rate_limits.tools.${name}`,
    });
  }
}

async function buildAgentAt(loaded: LoadedConfig, options: BuildOptions, depth: number, inherited: readonly string[]): Promise<AgentDefinition> {
  const { config } = loaded;
  const secrets = knownSecrets(loaded, options, inherited);
  const built = await buildModel(loaded, options);
  const model = options.modelFor ? options.modelFor(built, loaded) : built;
  const fromModules = await loadToolModules(loaded);
  const retriever = buildRetriever(loaded);
  const configured = buildTools(loaded, options.tools ?? [], options.workspaceFor, fromModules, retriever);
  const toolFor = options.toolFor;
  const tools = [...(toolFor ? configured.map((tool) => toolFor(tool, loaded)) : configured), ...(await buildSubAgents(loaded, options, depth, secrets))];
  checkToolNames(loaded, tools);
  return {
    name: config.name,
    ...(config.system_prompt !== undefined ? { system: config.system_prompt } : {}),
    maxSteps: config.max_steps,
    model,
    ...(retriever && config.retrieval?.mode === "augment"
      ? {
          retrieval: {
            retriever,
            topK: config.retrieval.top_k,
            ...(config.retrieval.min_score !== undefined ? { minScore: config.retrieval.min_score } : {}),
            ...(config.retrieval.template !== undefined ? { template: config.retrieval.template } : {}),
          },
        }
      : {}),
    tools,
    ...buildGovernance(loaded, options.approver),
    sampling: {
      ...(config.llm.temperature !== undefined ? { temperature: config.llm.temperature } : {}),
      ...(config.llm.max_tokens !== undefined ? { maxTokens: config.llm.max_tokens } : {}),
      ...(config.llm.seed !== undefined ? { seed: config.llm.seed } : {}),
    },
    maxRetries: config.llm.max_retries,
    ...(config.llm.max_interruptions !== undefined ? { maxInterruptions: config.llm.max_interruptions } : {}),
    cost: configCost(config),
    config: loggedConfig(config),
    redaction: { secrets, patterns: config.guardrails?.output.redact_secrets ?? true },
  };
}

/**
 * The configuration as every run of the agent records it in `run.started`: secrets redacted, and
 * registered immutable, so that its redaction and its text are made once, not once per run (an
 * eval runs one agent for many cases). Data that cannot be registered (not plain) stays a plain
 * copy, and logging it reports the problem as it always did.
 */
function loggedConfig(config: AgentConfig): JsonValue {
  const copy = redactSecrets(config) as JsonValue;
  try {
    return immutable(copy);
  } catch {
    return copy;
  }
}
