import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildAgent, interpolateEnv, loadConfig, parseConfig } from "../../src/config/index.js";
import { AgentRun } from "../../src/agent/index.js";
import { isImmutable } from "../../src/canonical/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { redactSecrets } from "../../src/redaction/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { tempDir } from "../helpers.js";

function configError(text: string, env: Record<string, string> = {}): ConfigError {
  try {
    parseConfig(text, { file: "agent.yaml", env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const minimal = "name: a\nllm:\n  provider: scripted\n";

describe("config", () => {
  it("applies defaults to a minimal config", () => {
    const { config } = parseConfig(minimal, { env: {} });
    expect(config).toMatchObject({ name: "a", max_steps: 10, tools: [], documents: [], llm: { provider: "scripted", max_retries: 2, stream: false } });
  });

  it("names the path and the problem for a wrong type", () => {
    const error = configError("name: a\nllm:\n  provider: openai\n  model: 42\n");
    expect(error.place).toEqual({ file: "agent.yaml", path: "llm.model" });
    expect(error.describe()).toMatch(/^agent\.yaml llm\.model: .*expected string/i);
  });

  it("rejects an unknown key and suggests the nearest known one", () => {
    const error = configError(`${minimal}max_step: 3\n`);
    expect(error.message).toBe('unknown key "max_step" (did you mean "max_steps"?)');
    expect(error.place.path).toBe("max_step");
  });

  it("suggests within nested objects too", () => {
    const error = configError("name: a\nllm:\n  provider: openai\n  modle: gpt-4o\n");
    expect(error.message).toBe('unknown key "modle" (did you mean "model"?)');
    expect(error.place.path).toBe("llm.modle");
  });

  it("does not invent a suggestion for an unrelated key", () => {
    expect(configError(`${minimal}banana: 1\n`).message).toBe('unknown key "banana"');
  });

  it("reports malformed YAML with line and column", () => {
    const error = configError("name: a\nllm: [unclosed\n");
    expect(error.message).toMatch(/^malformed YAML at line \d+, column \d+/);
    expect(error.place.file).toBe("agent.yaml");
  });

  it("rejects an unknown provider, listing what is allowed", () => {
    expect(configError("name: a\nllm:\n  provider: gemini\n").describe()).toMatch(/llm\.provider: .*"openai"/);
  });

  it("interpolates ${VAR} and ${VAR:default}", () => {
    const { config } = parseConfig("name: ${NAME:fallback}\nllm:\n  provider: openai\n  model: ${MODEL}\n  base_url: http://${HOST:localhost}:11434/v1\n", {
      env: { MODEL: "gpt-4o" },
    });
    expect(config.name).toBe("fallback");
    expect(config.llm.model).toBe("gpt-4o");
    expect(config.llm.base_url).toBe("http://localhost:11434/v1");
  });

  it("remembers which variable an unset value came from", () => {
    const { config, missingEnv } = parseConfig("name: a\nllm:\n  provider: openai\n  api_key: ${OPENAI_API_KEY}\n", { env: {} });
    expect(config.llm.api_key).toBeUndefined();
    expect(missingEnv.get("llm.api_key")).toBe("OPENAI_API_KEY");
  });

  it("interpolation reaches nested arrays", () => {
    expect(interpolateEnv({ a: ["${X}", { b: "${Y:z}" }] }, { X: "1" }).value).toEqual({ a: ["1", { b: "z" }] });
  });

  it("redacts secrets before a config is recorded, and only secrets", () => {
    expect(
      redactSecrets({
        llm: { api_key: "sk-live-123", model: "m", max_tokens: 100 },
        headers: { Authorization: "Bearer x" },
        github_token: "ghp_x",
        guardrails: { output: { redact_secrets: true } },
      }),
    ).toEqual({
      llm: { api_key: "[redacted]", model: "m", max_tokens: 100 },
      headers: { Authorization: "[redacted]" },
      github_token: "[redacted]",
      guardrails: { output: { redact_secrets: true } },
    });
  });

  it("records one immutable configuration, secrets redacted, in every run of the agent", async () => {
    const dir = tempDir();
    const file = join(dir, "agent.yaml");
    writeFileSync(file, "name: a\nllm:\n  provider: openai\n  api_key: sk-live-0123456789abcdefghij\n  model: m\n");
    const agent = await buildAgent(loadConfig(file, {}), { mock: new ScriptedModel({ responses: [{ text: "hi" }, { text: "hi" }] }) });
    expect(isImmutable(agent.config)).toBe(true);
    expect(Object.isFrozen(agent.config)).toBe(true);
    const store = new MemoryRunStore();
    const context = createRunContext({ clock: manualClock(0), ids: sequentialIds("r") });
    const logged = [0, 1].map((n) => {
      const run = AgentRun.start(agent, { store, context, runId: `run_${n}` });
      return store.readRaw(run.runId)[0] as string;
    });
    const config = (JSON.parse(logged[0] as string) as { config: { llm: Record<string, unknown> } }).config;
    expect(config.llm).toMatchObject({ api_key: "[redacted]", model: "m" });
    expect(logged[1]?.replace(/"runId":"run_1"/, '"runId":"run_0"')).toBe(logged[0]);
    expect(logged.join("")).not.toContain("sk-live");
  });

  it("gives a whole-value reference the type its place expects", () => {
    const { config } = parseConfig("name: ${NAME}\nmax_steps: ${STEPS:5}\nllm:\n  provider: openai\n  api_key: ${KEY}\n  temperature: ${T:0.5}\n  stream: ${S:true}\n", {
      env: { NAME: "true", KEY: "12345" },
    });
    expect(config).toMatchObject({ name: "true", max_steps: 5, llm: { api_key: "12345", temperature: 0.5, stream: true } });
  });

  it("names the unset variable when a required value comes from it", () => {
    const error = configError("name: ${AGENT_NAME}\nllm: {provider: scripted}\n");
    expect(error.describe()).toBe("agent.yaml name: environment variable AGENT_NAME is not set (and no default is given: ${AGENT_NAME:default})");
  });

  it("rejects roles on a rule that does not require approval", () => {
    expect(configError(`${minimal}policy:\n  - { tool: x, action: deny, roles: [a] }\n`).describe()).toMatch(/policy\[0\]\.roles: roles only apply to action require_approval/);
  });

  it("reports a missing config file clearly", () => {
    expect(() => loadConfig(join(tempDir(), "nope.yaml"))).toThrow(/config file not found/);
  });

  it("loads a file and resolves its folder", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), minimal);
    const loaded = loadConfig(join(dir, "agent.yaml"), {});
    expect(loaded.baseDir).toBe(dir);
  });
});
