/**
 * Turns an eval case into a runnable agent: its config (a file or inline), its model (the mock
 * script under --mock, the configured provider under --live), its tool mocks, and a workspace
 * of its own. Configs, scripts and agents are parsed once per suite and shared by the cases
 * that use them; only what a case can change (the scripted model's position, stateful tool
 * mocks, a file workspace) is made per case.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AgentDefinition } from "../../agent/index.js";
import { AgentConfigSchema, buildAgent, interpolateEnv, loadConfig, type LoadedConfig } from "../../config/index.js";
import { EvalDefinitionError, RetraceError } from "../../errors/index.js";
import type { LanguageModel, LlmRequest, LlmResponse } from "../../contracts/index.js";
import { ScriptedModel } from "../../providers/scripted/index.js";
import { type Script, type ScriptInput } from "../../contracts/index.js";
import type { AnyTool } from "../../tools/index.js";
import { validate } from "../../validation/index.js";
import { placeOf, type EvalCase } from "../dsl/index.js";
import { applyToolMocks, type CaseHooks } from "./tool-mocks.js";

export type EvalMode = "mock" | "live";

const FILE_TOOLS = new Set(["read_file", "list_dir", "write_file"]);

/** Stands in for the model while the shared part of an agent is built under --mock; never called. */
const NO_MODEL: LanguageModel = {
  provider: "scripted",
  model: "scripted",
  generate(_request: LlmRequest): Promise<LlmResponse> {
    return Promise.reject(new Error("internal: the placeholder model was called"));
  },
};

export interface PreparedAgent {
  agent: AgentDefinition;
  /** The scripted model under --mock, to report unused responses. */
  script: ScriptedModel | undefined;
  /** A temp dir the case owns (its agents' workspace copies); removed after the case. */
  tempDir: string | undefined;
  /** The top agent's workspace (a copy in tempDir), when it has file tools. */
  workspace: string | undefined;
  config: LoadedConfig;
}

export type { CaseHooks } from "./tool-mocks.js";

export class SuiteSetup {
  readonly mode: EvalMode;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly #configs = new Map<string, LoadedConfig | Error>();
  readonly #inlineConfigs = new WeakMap<object, LoadedConfig | Error>();
  readonly #scripts = new Map<string, Script | Error>();
  readonly #inlineScripts = new WeakMap<object, Script | Error>();
  readonly #agents = new Map<LoadedConfig, Promise<AgentDefinition>>();

  /** What every live agent is built with: a cassette's fetch, and whether a key is needed. */
  readonly #buildOptions: { fetch?: typeof fetch; keyless?: boolean };

  constructor(mode: EvalMode, env: Readonly<Record<string, string | undefined>>, build: { fetch?: typeof fetch; keyless?: boolean } = {}) {
    this.mode = mode;
    this.env = env;
    this.#buildOptions = mode === "live" ? build : {};
  }

  config(spec: EvalCase): LoadedConfig {
    const baseDir = caseDir(spec);
    if (typeof spec.config === "string") {
      const path = resolve(baseDir, spec.config);
      let loaded = this.#configs.get(path);
      if (!loaded) {
        loaded = attempt(() => loadConfig(path, this.env));
        this.#configs.set(path, loaded);
      }
      if (loaded instanceof Error) throw loaded;
      return loaded;
    }
    let loaded = this.#inlineConfigs.get(spec.config);
    if (!loaded) {
      const inline = spec.config;
      loaded = attempt(() => {
        const { value, missing } = interpolateEnv(inline, this.env);
        return { config: validate(AgentConfigSchema, value, spec.file), file: spec.file ?? "(inline config)", baseDir, missingEnv: missing };
      });
      this.#inlineConfigs.set(spec.config, loaded);
    }
    if (loaded instanceof Error) throw loaded;
    return loaded;
  }

  script(source: string | ScriptInput, baseDir: string): { script: Script; file: string | undefined } {
    if (typeof source === "string") {
      const path = resolve(baseDir, source);
      let script = this.#scripts.get(path);
      if (!script) {
        // Parsed once through ScriptedModel, which then takes the parsed script as checked.
        script = attempt(() => ScriptedModel.fromFile(path).script);
        this.#scripts.set(path, script);
      }
      if (script instanceof Error) throw script;
      return { script, file: path };
    }
    let script = this.#inlineScripts.get(source);
    if (!script) {
      script = attempt(() => new ScriptedModel(source).script);
      this.#inlineScripts.set(source, script);
    }
    if (script instanceof Error) throw script;
    return { script, file: undefined };
  }

  /** A case's script (its `mock`, or a judge's): an inline one that is invalid is named by the case and its file. */
  #caseScript(source: string | ScriptInput, spec: EvalCase, what: string): { script: Script; file: string | undefined } {
    const baseDir = caseDir(spec);
    try {
      return this.script(source, baseDir);
    } catch (error) {
      if (typeof source === "string" || !(error instanceof RetraceError)) throw error;
      throw new EvalDefinitionError(`case "${spec.name}": the inline ${what} is invalid: ${error.describe()}`, placeOf(spec));
    }
  }

  /** The agent for one case: shared parts from the cache, a fresh model and fresh mocks. */
  async prepare(spec: EvalCase, hooks?: CaseHooks): Promise<PreparedAgent> {
    const loaded = this.config(spec);
    // A case that replays a bundle is answered by its recording; a mock, when given, answers only after a divergence.
    const replayOnly = spec.replay !== undefined && spec.mock === undefined;
    const script = this.mode === "mock" && !replayOnly ? this.#mockModel(spec, loaded) : undefined;
    const usesFiles = hasFileTools(loaded);
    // Sub-agents hold scripted models of their own, whose position is per run: build them per case.
    const hasSubAgents = Object.keys(loaded.config.agents ?? {}).length > 0;
    let tempDir: string | undefined;
    let base: AgentDefinition;
    const copies = new Map<string, string>();
    if (usesFiles || hasSubAgents) {
      // Every agent in the tree with file tools — the top one and each sub-agent — works in a
      // copy of its configured workspace, in a temp dir the case owns, so Retrace's file tools
      // never change the real one. Agents configured with the same folder share one copy.
      const workspaceFor = (agent: LoadedConfig, configured: string): string => {
        if (!hasFileTools(agent)) return configured;
        let copy = copies.get(configured);
        if (copy === undefined) {
          tempDir ??= mkdtempSync(join(tmpdir(), "retrace-eval-"));
          copy = agent === loaded && !copies.size ? join(tempDir, "workspace") : join(tempDir, `workspace-${copies.size + 1}`);
          if (existsSync(configured)) cpSync(configured, copy, { recursive: true });
          else mkdirSync(copy);
          copies.set(configured, copy);
        }
        return copy;
      };
      try {
        base = await buildAgent(loaded, { ...this.#buildOptions, env: this.env, workspaceFor, ...(script ? { mock: script } : {}), ...(replayOnly ? { keyless: true } : {}) });
      } catch (error) {
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
        throw error;
      }
    } else {
      let shared = this.#agents.get(loaded);
      if (!shared) {
        shared = this.#build(loaded);
        this.#agents.set(loaded, shared);
        shared.catch(() => this.#agents.delete(loaded));
      }
      base = await shared;
    }
    let tools: AnyTool[];
    try {
      tools = applyToolMocks(base.tools, spec, hooks);
    } catch (error) {
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      throw error;
    }
    const agent: AgentDefinition = { ...base, tools, ...(script ? { model: script } : {}) };
    const workspace = usesFiles ? copies.get(resolve(loaded.baseDir, loaded.config.workspace ?? "workspace")) : undefined;
    return { agent, script, tempDir, workspace, config: loaded };
  }

  /** A model for an llm-judge: a script under --mock, an `llm` section or the agent's model under --live. */
  async judgeModel(request: { model?: LanguageModel; mock?: string | ScriptInput; llm?: Record<string, unknown> }, spec: EvalCase, agentModel: LanguageModel): Promise<LanguageModel> {
    if (request.model) return request.model;
    const baseDir = caseDir(spec);
    if (this.mode === "mock") {
      if (request.mock === undefined) {
        throw new EvalDefinitionError('llm-judge under --mock needs a judge script: pass `mock` (a script file or an inline script) or `model`', placeOf(spec));
      }
      const { script, file } = this.#caseScript(request.mock, spec, "judge script (mock)");
      return new ScriptedModel(script, file);
    }
    if (request.llm) {
      const { value, missing } = interpolateEnv({ name: "judge", llm: request.llm }, this.env);
      const config = validate(AgentConfigSchema, value, spec.file);
      const judge = await buildAgent({ config, file: spec.file ?? "(judge)", baseDir, missingEnv: missing }, { ...this.#buildOptions, env: this.env });
      return judge.model;
    }
    return agentModel;
  }

  #mockModel(spec: EvalCase, loaded: LoadedConfig): ScriptedModel {
    if (spec.mock !== undefined) {
      const { script, file } = this.#caseScript(spec.mock, spec, "mock script");
      return new ScriptedModel(script, file);
    }
    const { llm } = loaded.config;
    if (llm.provider === "scripted" && llm.script) {
      const { script, file } = this.script(llm.script, loaded.baseDir);
      return new ScriptedModel(script, file);
    }
    throw new EvalDefinitionError(
      `case "${spec.name}" has no mock script: under --mock give it "mock" (a script file or an inline script), or use a config with llm.provider: scripted and llm.script`,
      placeOf(spec),
    );
  }

  #build(loaded: LoadedConfig): Promise<AgentDefinition> {
    return buildAgent(loaded, { ...this.#buildOptions, env: this.env, ...(this.mode === "mock" ? { model: NO_MODEL } : {}) });
  }
}

/** The folder a case's relative paths (config, scripts) are read from: its eval file's, else the working directory. */
function caseDir(spec: EvalCase): string {
  return spec.file ? dirname(spec.file) : process.cwd();
}

function attempt<T>(load: () => T): T | Error {
  try {
    return load();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function hasFileTools(loaded: LoadedConfig): boolean {
  return loaded.config.tools.some((entry) => FILE_TOOLS.has(typeof entry === "string" ? entry : "name" in entry ? entry.name : ""));
}
