import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { viewRun } from "../../src/journal/index.js";
import { tempDir, testContext } from "../helpers.js";

function project(config: string): string {
  const dir = tempDir();
  mkdirSync(join(dir, "kb/hr"), { recursive: true });
  writeFileSync(join(dir, "kb/hr/leave.md"), "---\ntags: [hr]\nregion: eu\n---\n# Leave\n\nLeave is 25 days.\n\nSick leave is 10 days.\n");
  writeFileSync(join(dir, "kb/hr/leave-us.md"), "---\ntags: [hr]\nregion: us\n---\n# Leave\n\nLeave is 15 days.\n");
  writeFileSync(join(dir, "kb/answers.jsonl"), '{"key":"k1","answer":"Leave requests go to your manager.","tags":["hr","process"]}\n');
  writeFileSync(join(dir, "agent.yaml"), config);
  return join(dir, "agent.yaml");
}

async function searchOnce(file: string, args: Record<string, unknown>) {
  const agent = await buildAgent(loadConfig(file, {}), {
    model: new ScriptedModel({ responses: [{ tool_calls: [{ name: "search_docs", arguments: args }] }, { text: "done" }] }),
  });
  const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
  await run.send("leave?");
  return viewRun(run.log.events).retrievals;
}

const base = `name: kb
llm: { provider: scripted }
tools: [search_docs]
documents:
  - kb/hr/*.md
  - { path: kb/answers.jsonl, text_field: answer, id_field: key, tags: [faq] }
`;

describe("retrieval in config", () => {
  it("names documents relative to retrieval.root, reads JSON Lines fields, and applies the configured filter under the call's", async () => {
    const file = project(`${base}retrieval:\n  root: kb\n  chunking: { strategy: paragraph }\n  filter: { tags: hr }\n`);
    const [all] = await searchOnce(file, { query: "leave days manager", k: 10 });
    expect(all?.chunks.map((chunk) => chunk.source).sort()).toEqual(["answers.jsonl:k1", "hr/leave-us.md", "hr/leave.md", "hr/leave.md"]);
    expect(all).toMatchObject({ mode: "tool", tool: "search_docs", turn: 1 });
    const [eu] = await searchOnce(file, { query: "leave days", k: 10, filter: { region: "eu" } });
    expect(eu?.chunks.map((chunk) => chunk.text)).toEqual(["Leave is 25 days.", "Sick leave is 10 days."]);
    const [faq] = await searchOnce(file, { query: "leave manager", filter: { tags: ["faq"] } });
    expect(faq?.chunks.map((chunk) => chunk.id)).toEqual([expect.stringMatching(/^answers\.jsonl:k1#1:[0-9a-f]{8}$/)]);
  });

  it("min_score drops weak chunks for search_docs too", async () => {
    const file = project(`${base}retrieval:\n  chunking: { strategy: paragraph }\n  min_score: 0.9\n`);
    const [retrieval] = await searchOnce(file, { query: "sick", k: 10 });
    expect(retrieval?.chunks.map((chunk) => chunk.text)).toEqual(["Sick leave is 10 days."]);
    const [none] = await searchOnce(project(`${base}retrieval:\n  min_score: 50\n`), { query: "leave" });
    expect(none?.chunks).toEqual([]);
  });

  it("refuses unknown retrieval keys and bad values, naming the file and the key", () => {
    for (const bad of ["retrieval: { mode: sometimes }\n", "retrieval: { topk: 3 }\n", "retrieval: { chunking: { strategy: words } }\n", "documents: [{ file: a.md }]\n"]) {
      const file = project(`name: kb\nllm: { provider: scripted }\n${bad}`);
      expect(() => loadConfig(file, {}), bad).toThrow(ConfigError);
    }
  });
});

describe("one index per agent", () => {
  it("augmentation and search_docs share it: after the first retrieval the files are never read again", async () => {
    const { rmSync } = await import("node:fs");
    const { dirname } = await import("node:path");
    const file = project(`${base}retrieval:\n  mode: augment\n  chunking: { strategy: paragraph }\n`);
    const agent = await buildAgent(loadConfig(file, {}), {
      model: new ScriptedModel({
        responses: [{ tool_calls: [{ name: "search_docs", arguments: { query: "sick leave" } }] }, { text: "10 days [1]." }, { text: "25 days [1]." }],
      }),
    });
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("How long is sick leave?")).status).toBe("completed");
    rmSync(join(dirname(file), "kb"), { recursive: true });
    expect((await run.send("How long is annual leave?")).status).toBe("completed");
    const retrievals = viewRun(run.log.events).retrievals;
    expect(retrievals.map((retrieval) => [retrieval.mode, retrieval.turn, retrieval.chunks[0]?.text])).toEqual([
      ["augment", 1, "Sick leave is 10 days."],
      ["tool", 1, "Sick leave is 10 days."],
      ["augment", 2, "Leave is 15 days."], // the shorter chunk of the two that say "leave … days"
    ]);
  });
});
