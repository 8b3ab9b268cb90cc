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
