import path from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun, DEFAULT_AUGMENT_TEMPLATE, renderPassages, type AgentDefinition } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import type { EventOf, RetrievedChunk } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { viewRun } from "../../src/journal/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { parseConfig } from "../../src/config/index.js";
import { echoTool, testContext } from "../helpers.js";

const root = path.resolve(import.meta.dirname, "../..");
const policies = path.join(root, "eval/agents/policies.yaml");
const question = "How many annual leave days does a permanent employee get?";

async function policyAgent(responses: ConstructorParameters<typeof ScriptedModel>[0]["responses"], overrides: Partial<AgentDefinition> = {}): Promise<AgentDefinition> {
  const agent = await buildAgent(loadConfig(policies, {}), { model: new ScriptedModel({ responses }) });
  return { ...agent, ...overrides };
}

const ofType = <T extends EventOf<"llm.started">["type"] | "retrieval">(events: readonly { type: string }[], type: T) =>
  events.filter((event): event is EventOf<T> => event.type === type);

describe("augment mode", () => {
  it("retrieves the annual-leave passage before the model call and sends it as [1] in the system prompt", async () => {
    const agent = await policyAgent([{ text: "25 days [1]." }]);
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send(question)).status).toBe("completed");
    const types = run.log.events.map((event) => event.type);
    expect(types.indexOf("retrieval")).toBe(types.indexOf("message") + 1);
    expect(types.indexOf("retrieval")).toBeLessThan(types.indexOf("llm.started"));
    const [retrieval] = ofType(run.log.events, "retrieval");
    expect(retrieval).toMatchObject({ mode: "augment", turn: 1, query: question });
    expect(retrieval?.callId).toBeUndefined();
    expect(retrieval?.chunks[0]).toMatchObject({ id: "policies/leave.md#1:01ca2a81", source: "policies/leave.md", rank: 1, title: "Leave policy", headings: ["Leave policy", "Annual leave"] });
    const [started] = ofType(run.log.events, "llm.started");
    expect(started?.request.system).toContain("You answer employees' questions about company policy.\n\nAnswer from the numbered passages below.");
    expect(started?.request.system).toContain("[1] policies/leave.md › Leave policy › Annual leave\nPermanent employees get 25 days of paid annual leave per calendar year.");
    expect(started?.request.messages).toEqual([{ role: "user", content: question }]);
    expect(viewRun(run.log.events).retrievals[0]).toMatchObject({ mode: "augment", turn: 1, tool: undefined });
  });

  it("retrieves once per turn: every step of the turn sends the same passages, the next turn retrieves anew", async () => {
    const agent = await policyAgent(
      [{ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "25 days [1]." }, { text: "16 weeks [1]." }],
      {},
    );
    const withTool = { ...agent, tools: [echoTool] };
    const run = AgentRun.start(withTool, { store: new MemoryRunStore(), context: testContext() });
    await run.send(question);
    await run.send("How long is parental leave?");
    const retrievals = ofType(run.log.events, "retrieval");
    expect(retrievals.map((event) => [event.turn, event.query])).toEqual([
      [1, question],
      [2, "How long is parental leave?"],
    ]);
    const systems = ofType(run.log.events, "llm.started").map((event) => event.request.system);
    expect(systems[0]).toBe(systems[1]);
    expect(systems[2]).toContain("16 weeks of paid parental leave");
    expect(systems[2]).not.toBe(systems[0]);
  });

  it("a resumed turn sends the logged passages, never searching again", async () => {
    const store = new MemoryRunStore();
    const first = await policyAgent([]);
    const run = AgentRun.start(first, { store, context: testContext() });
    // A crash after the retrieval was logged, before the model was called.
    const chunk: RetrievedChunk = { id: "x.md#1:00000000", source: "x.md", text: "Logged passage.", score: 1, rank: 1 };
    run.log.appendAll([{ type: "message", role: "user", content: question }, { type: "retrieval", mode: "augment", turn: 1, query: question, chunks: [chunk] }]);
    let searches = 0;
    const later = await policyAgent([{ text: "ok [1]" }]);
    const resumedAgent: AgentDefinition = {
      ...later,
      retrieval: { ...later.retrieval!, retriever: { search: () => (searches++, Promise.reject(new Error("must not search"))) } },
    };
    const outcome = await AgentRun.open(resumedAgent, run.runId, { store, context: testContext() }).resume();
    expect(outcome.status).toBe("completed");
    expect(searches).toBe(0);
    const [started] = ofType(store.read(run.runId), "llm.started");
    expect(started?.request.system).toContain("[1] x.md\nLogged passage.");
  });

  it("a failing search fails the turn with retrieval_failed, before any model call", async () => {
    const agent = await policyAgent([{ text: "never" }]);
    const broken: AgentDefinition = { ...agent, retrieval: { ...agent.retrieval!, retriever: { search: () => Promise.reject(new Error("document gone")) } } };
    const run = AgentRun.start(broken, { store: new MemoryRunStore(), context: testContext() });
    const outcome = await run.send(question);
    expect(outcome).toMatchObject({ status: "failed", error: { code: "retrieval_failed", message: "retrieval before the model call failed: document gone" } });
    expect(run.log.events.some((event) => event.type === "llm.started")).toBe(false);
  });

  it("the template is configurable; an empty retrieval says so", async () => {
    const agent = await policyAgent([{ text: "I don't know." }]);
    const templated: AgentDefinition = { ...agent, retrieval: { ...agent.retrieval!, template: "Sources:\n{{context}}\n---\n{{system}}" } };
    const run = AgentRun.start(templated, { store: new MemoryRunStore(), context: testContext() });
    await run.send("stock option vesting schedule");
    const [started] = ofType(run.log.events, "llm.started");
    expect(started?.request.system).toBe("Sources:\n(No passage matched the question.)\n---\nYou answer employees' questions about company policy.");
    expect(DEFAULT_AUGMENT_TEMPLATE).toContain("{{context}}");
    expect(renderPassages([])).toBe("(No passage matched the question.)");
  });

  it("config: augment needs documents; retrieval settings are checked", () => {
    const noDocs = parseConfig("name: a\nllm: {provider: scripted}\nretrieval: {mode: augment}\n", { file: "a.yaml", env: {} });
    return Promise.all([
      expect(buildAgent({ ...noDocs, file: "a.yaml", baseDir: root, missingEnv: new Map() }, { model: new ScriptedModel({ responses: [] }) })).rejects.toThrow(ConfigError),
      expect(() => parseConfig("name: a\nllm: {provider: scripted}\nretrieval: {chunking: {strategy: fixed, size: 10, overlap: 10}}\n", { file: "a.yaml", env: {} })).toThrow(/overlap/),
      expect(() => parseConfig("name: a\nllm: {provider: scripted}\nretrieval: {bm25: {b: 2}}\n", { file: "a.yaml", env: {} })).toThrow(ConfigError),
    ]);
  });
});

describe("recordedRetriever", () => {
  it("re-drives an augmented run from its log alone — no documents — to the same events", async () => {
    const { recordedRetriever } = await import("../../src/agent/index.js");
    const responses = [{ text: "25 days [1]." }, { text: "16 weeks [1]." }];
    const drive = async (agent: AgentDefinition) => {
      const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext(), runId: "run_same" });
      await run.send(question);
      await run.send("How long is parental leave?");
      return run.log.events;
    };
    const recorded = await drive(await policyAgent(responses));
    const fresh = await policyAgent(responses);
    const replayed = await drive({ ...fresh, retrieval: { ...fresh.retrieval!, retriever: recordedRetriever(recorded) } });
    expect(replayed).toEqual(recorded);
    const other = recordedRetriever(recorded);
    await expect(other.search("something else", { topK: 3 })).rejects.toThrow(/was recorded for "How many annual leave days/);
  });
});
