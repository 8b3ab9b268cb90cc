/**
 * A provider that reports no usage (many OpenAI-compatible servers) leaves the usage unknown:
 * not 0 tokens, and so not $0. The unknown travels from the response through the log, the
 * fold, the run view, the store's listing and the trace.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { addUsage, emptyUsage } from "../../src/contracts/index.js";
import { fold, summarize, viewRun } from "../../src/journal/index.js";
import { createOpenAIModel } from "../../src/providers/openai/index.js";
import { costOf } from "../../src/providers/pricing/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { formatTrace } from "../../src/trace/index.js";
import { tempDir, testContext } from "../helpers.js";

const PRICE = { "llama3": { input: 1, output: 2 } };

/** A compatible server on a fetch of our own: each answer in turn, with or without usage. */
function server(answers: { text: string; usage?: object }[]): typeof fetch {
  let next = 0;
  return async () => {
    const answer = answers[next++]!;
    return Response.json({
      id: `c${next}`,
      model: "llama3",
      choices: [{ index: 0, message: { role: "assistant", content: answer.text }, finish_reason: "stop" }],
      ...(answer.usage ? { usage: answer.usage } : {}),
    });
  };
}

async function runTwoTurns(answers: { text: string; usage?: object }[]) {
  const model = createOpenAIModel({ model: "llama3", provider: "openai-compatible", baseUrl: "http://llm.lan/v1", fetch: server(answers) });
  const store = new SqliteRunStore(join(tempDir(), "runs.db"));
  const run = AgentRun.start({ name: "a", maxSteps: 2, model, tools: [], cost: (name, usage) => costOf(name, usage, PRICE) }, { store, context: testContext() });
  await run.send("one");
  await run.send("two");
  const events: RunEvent[] = store.read(run.runId);
  const listed = store.list();
  store.close();
  return { events, listed };
}

describe("missing provider usage is unknown, not 0 tokens and $0", () => {
  it("a response without usage logs usage null and cost null; totals count it as unknown", async () => {
    const { events, listed } = await runTwoTurns([{ text: "first", usage: { prompt_tokens: 10, completion_tokens: 5 } }, { text: "second" }]);
    const finished = events.filter((event) => event.type === "llm.finished");
    expect(finished.map((event) => [event.response.usage, event.cost])).toEqual([
      [{ inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 }, 10 / 1e6 + 10 / 1e6],
      [null, null],
    ]);
    const total = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, unknownCalls: 1 };
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: "run.finished", usage: total, cost: null });
    expect(fold(events)).toMatchObject({ usage: total, cost: null });
    expect(viewRun(events)).toMatchObject({ usage: total, cost: null });
    expect(summarize(events)).toMatchObject({ usage: total, cost: null });
    expect(listed[0]).toMatchObject({ usage: total, cost: null });
    const trace = formatTrace(events);
    expect(trace).toContain("usage unknown");
    expect(trace).toContain("≥15 tokens (usage unknown for 1 call(s))");
  });

  it("a run whose every call reported usage has no unknown calls and a price", async () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    const { events } = await runTwoTurns([{ text: "first", usage }, { text: "second", usage }]);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: "run.finished", usage: { inputTokens: 20, outputTokens: 10, cachedInputTokens: 0 } });
    expect(last.type === "run.finished" && last.usage).not.toHaveProperty("unknownCalls");
    expect(last.type === "run.finished" && last.cost).toBeCloseTo(40 / 1e6);
  });

  it("adding usage keeps counts and unknown calls apart", () => {
    const one = { inputTokens: 3, outputTokens: 1, cachedInputTokens: 2 };
    expect(addUsage(emptyUsage(), one)).toEqual(one);
    expect(addUsage(addUsage(emptyUsage(), null), one)).toEqual({ ...one, unknownCalls: 1 });
    expect(addUsage({ ...one, unknownCalls: 2 }, { ...one, unknownCalls: 1 })).toEqual({ inputTokens: 6, outputTokens: 2, cachedInputTokens: 4, unknownCalls: 3 });
  });
});
