import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun, childRunId, isSubAgent, subAgentDefinition } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { tempDir } from "../helpers.js";
import { decide, ofType, setup } from "./support.js";

/** A parent that delegates to a `researcher` child whose write_file call needs approval. */
async function family() {
  const dir = tempDir();
  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);
  file("parent.yaml", "name: lead\nllm: {provider: openai}\nagents:\n  researcher: { config: ./child.yaml, mock: ./child-mock.yaml, description: Researches and files notes }\n");
  file("parent-mock.yaml", "responses:\n  - tool_calls: [{ name: researcher, arguments: { task: write the summary } }]\n  - text: the researcher filed it\n");
  file("child.yaml", `name: researcher\nllm: {provider: openai}\ntools: [{ name: write_file, requires_approval: true }]\nworkspace: ./ws\n`);
  file("child-mock.yaml", "responses:\n  - tool_calls: [{ name: write_file, arguments: { path: summary.md, content: done } }]\n  - text: summary written\n");
  return buildAgent(loadConfig(join(dir, "parent.yaml"), {}), { mock: join(dir, "parent-mock.yaml"), env: {} });
}

describe("sub-agents", () => {
  it("run as their own run, linked to the parent's call", async () => {
    const agent = await family();
    const env = setup();
    const parent = AgentRun.start(agent, { store: env.store, context: env.context });
    await parent.send("summarise");
    const child = env.store.read(childRunId(parent.runId, "call_1_1"));
    expect(child[0]).toMatchObject({ type: "run.started", agent: { name: "researcher" }, parent: { runId: parent.runId, callId: "call_1_1" } });
  });

  it("a waiting child pauses the parent, which says which child waits; resuming ends in one child run, not two", async () => {
    const agent = await family();
    const env = setup();
    const parent = AgentRun.start(agent, { store: env.store, context: env.context });
    const paused = await parent.send("summarise");
    const childId = childRunId(parent.runId, "call_1_1");
    expect(paused).toMatchObject({ status: "waiting", childRunId: childId, pending: [{ callId: "call_1_1", tool: "write_file" }] });
    expect(parent.log.events.at(-1)).toMatchObject({ type: "run.paused", reason: "child_waiting", childRunId: childId });

    decide(env.store, childId, "call_1_1", {});
    const researcher = agent.tools.find(isSubAgent);
    if (!researcher) throw new Error("the parent has no sub-agent tool");
    const child = await AgentRun.open(subAgentDefinition(researcher), childId, env).resume();
    expect(child).toMatchObject({ status: "completed", output: "summary written" });

    const finished = await AgentRun.open(agent, parent.runId, env).resume();
    expect(finished).toMatchObject({ status: "completed", output: "the researcher filed it" });
    const events = env.store.read(parent.runId);
    expect(ofType(events, "tool.finished")[0]).toMatchObject({ callId: "call_1_1", result: { runId: childId, output: "summary written" } });
    // Exactly one child run: the parent's resume used the child's recorded result.
    const runs = env.store.list();
    expect(runs.map((run) => run.runId).sort()).toEqual([parent.runId, childId].sort());
    expect(ofType(env.store.read(childId), "run.started")).toHaveLength(1);
    expect(ofType(env.store.read(childId), "llm.started")).toHaveLength(2);
  });

  it("resuming the parent also continues an approved child in place", async () => {
    const agent = await family();
    const env = setup();
    const parent = AgentRun.start(agent, { store: env.store, context: env.context });
    await parent.send("summarise");
    const childId = childRunId(parent.runId, "call_1_1");
    decide(env.store, childId, "call_1_1", {});
    const finished = await AgentRun.open(agent, parent.runId, env).resume();
    expect(finished.status).toBe("completed");
    expect(env.store.list()).toHaveLength(2);
  });

  it("a parent resumed while the child still waits pauses again, without a second child", async () => {
    const agent = await family();
    const env = setup();
    const parent = AgentRun.start(agent, { store: env.store, context: env.context });
    await parent.send("summarise");
    const again = await AgentRun.open(agent, parent.runId, env).resume();
    expect(again.status).toBe("waiting");
    expect(env.store.list()).toHaveLength(2);
  });
});
