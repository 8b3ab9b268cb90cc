import { resolve } from "node:path";
import type { AgentDefinition } from "../agent/index.js";
import { ConfigError } from "../errors/index.js";
import type { JsonValue } from "../canonical/index.js";
import { createModel, ScriptedModel, type LanguageModel, type Usage } from "../providers/index.js";
import { costOf } from "../providers/pricing/index.js";
import { createBuiltinTool } from "../tools/builtin/index.js";
import type { AnyTool } from "../tools/index.js";
import type { LoadedConfig } from "./load.js";
import { redactSecrets } from "./redact.js";
import type { AgentConfig, ToolEntry } from "./schema.js";

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
  env?: Readonly<Record<string, string | undefined>>;
}

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
    apiKey: llm.api_key,
    apiKeyVariable: loaded.missingEnv.get("llm.api_key"),
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
  if (typeof entry === "string") return tool;
  return {
    ...tool,
    ...(entry.risk !== undefined ? { risk: entry.risk } : {}),
    ...(entry.read_only !== undefined ? { readOnly: entry.read_only } : {}),
    ...(entry.requires_approval !== undefined ? { requiresApproval: entry.requires_approval } : {}),
    ...(entry.approval_timeout !== undefined ? { approvalTimeoutMs: entry.approval_timeout * 1000 } : {}),
  };
}

function buildTools(loaded: LoadedConfig, extra: readonly AnyTool[]): AnyTool[] {
  const { config, baseDir, file } = loaded;
  const extraByName = new Map(extra.map((tool) => [tool.name, tool]));
  const tools: AnyTool[] = [];
  for (const [index, entry] of config.tools.entries()) {
    const name = typeof entry === "string" ? entry : entry.name;
    const fromCode = extraByName.get(name);
    if (fromCode) {
      tools.push(applyEntry(fromCode, entry));
      extraByName.delete(name);
      continue;
    }
    try {
      const tool = createBuiltinTool(name, {
        workspace: resolve(baseDir, config.workspace ?? "workspace"),
        documents: config.documents.map((document) => resolve(baseDir, document)),
        baseDir,
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

export async function buildAgent(loaded: LoadedConfig, options: BuildOptions = {}): Promise<AgentDefinition> {
  const { config } = loaded;
  const model = await buildModel(loaded, options);
  return {
    name: config.name,
    ...(config.system_prompt !== undefined ? { system: config.system_prompt } : {}),
    maxSteps: config.max_steps,
    model,
    tools: buildTools(loaded, options.tools ?? []),
    sampling: {
      ...(config.llm.temperature !== undefined ? { temperature: config.llm.temperature } : {}),
      ...(config.llm.max_tokens !== undefined ? { maxTokens: config.llm.max_tokens } : {}),
      ...(config.llm.seed !== undefined ? { seed: config.llm.seed } : {}),
    },
    maxRetries: config.llm.max_retries,
    cost: configCost(config),
    config: redactSecrets(config) as JsonValue,
  };
}
