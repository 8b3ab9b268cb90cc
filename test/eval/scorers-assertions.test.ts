/**
 * The `t` assertions each built-in scorer offers: which scorer a call reaches, with which
 * options and expected value, and the label a report shows for it.
 */
import { describe, expect, it } from "vitest";
import { getScorer } from "../../scorers/index.js";
import { builtinAssertions } from "../../scorers/assertions.js";

type Sugar = { scorer: string; arity: number; call: (positional: never, options: never) => unknown };
const call = (name: keyof typeof builtinAssertions, positional: unknown[], options: object = {}) =>
  (builtinAssertions[name] as unknown as Sugar).call(positional as never, options as never);

describe("the built-in assertions", () => {
  it("are these, each reaching a registered scorer with as many positional arguments as it takes", () => {
    const table = Object.entries(builtinAssertions as unknown as Record<string, Sugar>).map(([name, sugar]) => [name, sugar.scorer, sugar.arity]);
    expect(table).toEqual([
      ["calledTool", "tool-called", 1],
      ["calledToolWith", "tool-called", 2],
      ["notCalledTool", "tool-not-called", 1],
      ["toolWasBlocked", "tool-blocked", 1],
      ["toolSequence", "tool-trajectory", 1],
      ["usedNoTools", "no-tools", 0],
      ["completed", "run-status", 0],
      ["waiting", "run-status", 0],
      ["failed", "run-status", 0],
      ["retrievedChunk", "retrieved-chunk", 1],
      ["rankingMetric", "ranking", 2],
      ["citationsResolve", "citations", 0],
      ["abstained", "abstains", 0],
      ["blocked", "guardrail", 0],
      ["warned", "guardrail", 0],
      ["outputContains", "includes", 1],
      ["outputMatches", "regex", 1],
      ["maxSteps", "budgets", 1],
      ["maxTokens", "budgets", 1],
      ["maxToolCalls", "budgets", 1],
      ["maxCost", "budgets", 1],
    ]);
    for (const [, scorer] of table) expect(getScorer(scorer as string).name).toBe(scorer);
  });

  it("calledTool and calledToolWith name the tool, the arguments, strictness and a count", () => {
    expect(call("calledTool", ["search"])).toStrictEqual({ label: 'calledTool("search")', options: { tool: "search" } });
    expect(call("calledTool", ["search"], { times: 2 })).toEqual({ label: 'calledTool("search")', options: { tool: "search", times: 2 } });
    expect(call("calledToolWith", ["search", { q: "x" }])).toStrictEqual({ label: 'calledToolWith("search", {"q":"x"})', options: { tool: "search", args: { q: "x" }, argsMatch: "partial" } });
    expect(call("calledToolWith", ["search", { q: "x" }], { strict: true, times: 1 })).toEqual({
      label: 'calledToolWith("search", {"q":"x"})',
      options: { tool: "search", args: { q: "x" }, argsMatch: "strict", times: 1 },
    });
  });

  it("notCalledTool, toolWasBlocked and usedNoTools name the tool and the reason", () => {
    expect(call("notCalledTool", ["delete"])).toEqual({ label: 'notCalledTool("delete")', options: { tool: "delete" } });
    expect(call("toolWasBlocked", ["write"])).toEqual({ label: 'toolWasBlocked("write")', options: { tool: "write" } });
    expect(call("toolWasBlocked", ["write"], { reason: "policy_denied" })).toEqual({ label: 'toolWasBlocked("write", policy_denied)', options: { tool: "write", reason: "policy_denied" } });
    expect(call("usedNoTools", [])).toEqual({ label: "usedNoTools()", options: {} });
  });

  it("toolSequence is exact and ordered by default, and says when it is not", () => {
    expect(call("toolSequence", [["search", { name: "read", args: { path: "x" } }]])).toEqual({
      label: "toolSequence([search, read])",
      options: { order: "ordered", allowExtra: false, args: "partial" },
      expected: ["search", { name: "read", args: { path: "x" } }],
    });
    expect(call("toolSequence", [["a", "b"]], { ordered: false, allowExtra: true, args: "strict" })).toEqual({
      label: "toolSequence([a, b], unordered, allowExtra)",
      options: { order: "superset", allowExtra: true, args: "strict" },
      expected: ["a", "b"],
    });
    expect(call("toolSequence", [["a"]], { ordered: false })).toMatchObject({ label: "toolSequence([a], unordered)", options: { order: "unordered" } });
  });

  it("completed and failed ask for a run status, failed optionally with a code", () => {
    expect(call("completed", [])).toEqual({ label: "completed()", options: { status: "completed" } });
    expect(call("failed", [])).toEqual({ label: "failed()", options: { status: "failed" } });
    expect(call("waiting", [])).toStrictEqual({ label: "waiting()", options: { status: "waiting" } });
    expect(call("failed", [], { code: "max_steps" })).toEqual({ label: 'failed("max_steps")', options: { status: "failed", code: "max_steps" } });
  });

  it("retrievedChunk takes a text or a chunk description, and case-sensitivity", () => {
    expect(call("retrievedChunk", ["request keys"])).toStrictEqual({ label: 'retrievedChunk("request keys")', options: { text: "request keys" } });
    expect(call("retrievedChunk", [{ id: "a#1", maxRank: 2 }], { caseSensitive: true })).toEqual({
      label: 'retrievedChunk({"id":"a#1","maxRank":2})',
      options: { id: "a#1", maxRank: 2, caseSensitive: true },
    });
    expect(call("retrievedChunk", ["x"], { caseSensitive: false })).toEqual({ label: 'retrievedChunk("x")', options: { text: "x", caseSensitive: false } });
    expect(call("retrievedChunk", ["x"], { turn: 2, maxRank: 3 })).toStrictEqual({ label: 'retrievedChunk("x")', options: { text: "x", turn: 2, maxRank: 3 } });
  });

  it("rankingMetric, citationsResolve and abstained name the metric, k and min, and pass their options on", () => {
    expect(call("rankingMetric", ["mrr", ["alpha"]])).toStrictEqual({ label: "rankingMetric(mrr@10 >= 1)", options: { metric: "mrr", gold: ["alpha"] } });
    expect(call("rankingMetric", ["ndcg", [{ id: "a#1" }]], { k: 3, min: 0.5, turn: 2 })).toStrictEqual({
      label: "rankingMetric(ndcg@3 >= 0.5)",
      options: { metric: "ndcg", gold: [{ id: "a#1" }], k: 3, min: 0.5, turn: 2 },
    });
    expect(call("rankingMetric", ["recall", ["x"]], { k: 0, min: 0 })).toMatchObject({ label: "rankingMetric(recall@0 >= 0)" });
    expect(call("citationsResolve", [])).toStrictEqual({ label: "citationsResolve()", options: {} });
    expect(call("citationsResolve", [], { everySentence: true, turn: 1 })).toStrictEqual({ label: "citationsResolve(everySentence)", options: { everySentence: true, turn: 1 } });
    expect(call("abstained", [])).toStrictEqual({ label: "abstained()", options: {} });
    expect(call("abstained", [], { whenNothingRelevant: true, relevant: ["leave"] })).toStrictEqual({ label: "abstained()", options: { whenNothingRelevant: true, relevant: ["leave"] } });
  });

  it("blocked and warned ask for a guardrail action, optionally a rule and a direction", () => {
    expect(call("blocked", [])).toEqual({ label: "blocked()", options: { action: "block" } });
    expect(call("warned", [], { rule: "output_pattern:refund", direction: "output" })).toEqual({
      label: 'warned("output_pattern:refund")',
      options: { action: "warn", rule: "output_pattern:refund", direction: "output" },
    });
  });

  it("outputContains and outputMatches pass the text or pattern as what is expected", () => {
    expect(call("outputContains", ["Lisbon"])).toStrictEqual({ label: 'outputContains("Lisbon")', options: {}, expected: "Lisbon" });
    expect(call("outputContains", [["a", "b"]], { caseSensitive: false })).toEqual({ label: 'outputContains(["a","b"])', options: { caseSensitive: false }, expected: ["a", "b"] });
    expect(call("outputMatches", [/total: \d+/i])).toEqual({ label: "outputMatches(/total: \\d+/i)", options: {}, expected: /total: \d+/i });
  });

  it("maxSteps, maxTokens and maxCost set one budget each", () => {
    expect(call("maxSteps", [3])).toEqual({ label: "maxSteps(3)", options: { maxSteps: 3 } });
    expect(call("maxTokens", [500])).toEqual({ label: "maxTokens(500)", options: { maxTokens: 500 } });
    expect(call("maxCost", [0.05])).toEqual({ label: "maxCost(0.05)", options: { maxCost: 0.05 } });
  });
});
