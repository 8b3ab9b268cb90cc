/**
 * An eval case's agent is its suite's shared agent with the case's own scripted model and tool
 * mocks (`withModelAndTools`); when that changes nothing the digest covers, the digest is the
 * shared agent's, hashed once. It must always be the digest the agent's own fields give.
 */
import { describe, expect, it } from "vitest";
import { agentDigest, withModelAndTools, type AgentDefinition } from "../../src/agent/index.js";
import type { LanguageModel } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { defineTool } from "../../src/tools/index.js";
import { z } from "zod";

const scripted = () => new ScriptedModel({ responses: [{ text: "hi" }] });
const http = (baseUrl: string): LanguageModel => ({
  provider: "openai",
  model: "gpt-test",
  identity: { provider: "openai", model: "gpt-test", baseUrl },
  generate: () => Promise.reject(new Error("not called")),
});
const echo = defineTool({ name: "echo", description: "Echoes.", input: z.object({ text: z.string() }), run: ({ text }) => text });

/** The digest of an agent with the same fields, made afresh (no derivation remembered). */
const fresh = (agent: AgentDefinition): string => agentDigest({ ...agent });

describe("the digest of an agent made from a shared one", () => {
  const base: AgentDefinition = { name: "a", system: "Be brief.", maxSteps: 4, model: scripted(), tools: [echo], config: Object.freeze({ name: "a" }) };

  it("is the digest its own fields give, whether or not it changes what the digest covers", () => {
    const cases: AgentDefinition[] = [
      withModelAndTools(base, scripted(), base.tools),
      withModelAndTools(base, scripted(), [echo]),
      withModelAndTools(base, scripted(), []),
      withModelAndTools(base, { ...scripted(), provider: "replay", model: "scripted", generate: () => Promise.reject(new Error("not called")) }, base.tools),
      withModelAndTools(base, http("http://localhost:1/v1"), base.tools),
    ];
    for (const agent of cases) expect(agentDigest(agent)).toBe(fresh(agent));
    expect(agentDigest(cases[0] as AgentDefinition)).toBe(agentDigest(base));
    expect(agentDigest(cases[2] as AgentDefinition)).not.toBe(agentDigest(base));
    expect(agentDigest(cases[3] as AgentDefinition)).not.toBe(agentDigest(base));
  });

  it("tells models with an identity apart by every field of it", () => {
    const remote: AgentDefinition = { ...base, model: http("http://localhost:1/v1") };
    const same = withModelAndTools(remote, http("http://localhost:1/v1"), remote.tools);
    const other = withModelAndTools(remote, http("http://localhost:2/v1"), remote.tools);
    expect(agentDigest(same)).toBe(agentDigest(remote));
    expect(agentDigest(other)).toBe(fresh(other));
    expect(agentDigest(other)).not.toBe(agentDigest(remote));
  });
});
