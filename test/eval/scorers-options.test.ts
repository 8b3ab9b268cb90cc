/**
 * The options each built-in scorer and assertion declares: the names a user may write, and the
 * values each accepts. An unknown or ill-typed option is an error with a suggestion, so these
 * lists are what a user can and cannot say.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { builtinAssertions } from "../../scorers/assertions.js";
import { listScorers } from "../../scorers/index.js";

type Schemas = Record<string, z.ZodType>;
const scorerOptions = (name: string) => (listScorers().find((scorer) => scorer.name === name) as unknown as { options?: Schemas }).options ?? {};
const assertionOptions = (name: keyof typeof builtinAssertions) => (builtinAssertions[name] as unknown as { options: Schemas }).options;
const accepts = (schemas: Schemas, key: string, value: unknown) => schemas[key]?.safeParse(value).success === true;

/** [scorer, option, values it accepts, values it refuses] */
const table: [string, string, unknown[], unknown[]][] = [
  ["budgets", "maxSteps", [0, 3], [-1, "3"]],
  ["budgets", "maxTokens", [0, 500], [-1]],
  ["budgets", "maxInputTokens", [10], [-1]],
  ["budgets", "maxOutputTokens", [10], [-1]],
  ["budgets", "maxCost", [0, 0.05], [-0.01]],
  ["budgets", "maxToolCalls", [2], [-1]],
  ["exact", "caseSensitive", [true, false], ["yes"]],
  ["exact", "trim", [true], [1]],
  ["includes", "caseSensitive", [false], ["no"]],
  ["includes", "mode", ["all", "any"], ["some", ""]],
  ["regex", "flags", ["i", ""], [1]],
  ["json-schema", "parse", [false], ["false"]],
  ["numeric", "tolerance", [0, 0.5], [-1]],
  ["numeric", "relative", [0.01], [-0.01]],
  ["numeric", "pick", ["first", "last", "only"], ["middle", ""]],
  ["similarity", "method", ["levenshtein", "dice", "jaccard"], ["cosine", ""]],
  ["similarity", "min", [0, 0.8, 1], [-0.1, 1.1]],
  ["similarity", "caseSensitive", [true], ["true"]],
  ["tool-trajectory", "order", ["ordered", "unordered", "subset", "superset"], ["sorted", ""]],
  ["tool-trajectory", "args", ["strict", "partial", "ignore"], ["loose", ""]],
  ["tool-trajectory", "allowExtra", [true], [1]],
  ["tool-trajectory", "include", ["finished", "requested"], ["all", ""]],
  ["llm-judge", "rubric", ["Is it right?"], [3]],
  ["llm-judge", "passAt", [0, 0.5, 1], [-0.1, 1.5]],
  ["llm-judge", "includeToolCalls", [true], ["yes"]],
  ["llm-judge", "model", [{ provider: "scripted" }], [null, "gpt"]],
  ["llm-judge", "mock", ["judge.yaml", { responses: [] }], [null, 3]],
  ["llm-judge", "llm", [{ provider: "openai" }], ["openai"]],
  ["llm-judge", "label", ["tone"], [1]],
  ["abstains", "whenNothingRelevant", [true], ["yes"]],
  ["abstains", "relevant", [["leave"], []], [[""], "leave"]],
  ["abstains", "phrases", [["no clue"]], [[""], "no clue"]],
  ["abstains", "turn", [1, 3], [0, 1.5]],
  ["citations", "everySentence", [false], [1]],
  ["citations", "allowNone", [true], ["true"]],
  ["citations", "turn", [2], [0, -1]],
  ["ranking", "metric", ["recall", "precision", "hit_rate", "mrr", "ndcg"], ["map", ""]],
  ["ranking", "gold", [["alpha"], [{ id: "d.md#1" }, { text: "alpha" }]], [[], [""], [{ id: "" }], [{ text: "" }], [{ id: "a", text: "b" }]]],
  ["ranking", "k", [1, 10], [0, 2.5]],
  ["ranking", "min", [0, 0.5, 1], [-0.1, 1.1]],
  ["ranking", "turn", [1], [0]],
  ["gaia-exact", "extract", [true, false], ["yes", 1]],
  ["bfcl-ast", "mode", ["fc", "prompt"], ["prompting", 1]],
];

describe("the options of the built-in scorers", () => {
  it.each(table)("%s takes %s", (scorer, option, good, bad) => {
    const schemas = scorerOptions(scorer);
    for (const value of good) expect(accepts(schemas, option, value), `${scorer}.${option} = ${JSON.stringify(value)}`).toBe(true);
    for (const value of bad) expect(accepts(schemas, option, value), `${scorer}.${option} = ${JSON.stringify(value)}`).toBe(false);
  });

  it("are exactly these names", () => {
    const names = Object.fromEntries(listScorers().map((scorer) => [scorer.name, Object.keys(scorerOptions(scorer.name)).sort()]));
    expect(names).toEqual({
      abstains: ["phrases", "relevant", "turn", "whenNothingRelevant"],
      citations: ["allowNone", "everySentence", "turn"],
      ranking: ["gold", "k", "metric", "min", "turn"],
      "bfcl-ast": ["mode"],
      budgets: ["maxCost", "maxInputTokens", "maxOutputTokens", "maxSteps", "maxTokens", "maxToolCalls"],
      exact: ["caseSensitive", "trim"],
      "gaia-exact": ["extract"],
      guardrail: [],
      includes: ["caseSensitive", "mode"],
      "json-schema": ["parse"],
      "llm-judge": ["includeToolCalls", "label", "llm", "mock", "model", "passAt", "rubric"],
      "no-tools": [],
      numeric: ["pick", "relative", "tolerance"],
      regex: ["flags"],
      "retrieved-chunk": [],
      "run-status": [],
      similarity: ["caseSensitive", "method", "min"],
      "tool-blocked": [],
      "tool-called": [],
      "tool-not-called": [],
      "tool-trajectory": ["allowExtra", "args", "include", "order"],
    });
  });
});

describe("the options of the built-in assertions", () => {
  it("are exactly these names, each with the values it takes", () => {
    const names = Object.fromEntries(Object.keys(builtinAssertions).map((name) => [name, Object.keys(assertionOptions(name as keyof typeof builtinAssertions)).sort()]));
    expect(names).toEqual({
      calledTool: ["times"],
      calledToolWith: ["strict", "times"],
      notCalledTool: [],
      toolWasBlocked: ["reason"],
      toolSequence: ["allowExtra", "args", "ordered"],
      usedNoTools: [],
      completed: [],
      waiting: [],
      failed: ["code"],
      retrievedChunk: ["caseSensitive", "maxRank", "turn"],
      rankingMetric: ["k", "min", "turn"],
      citationsResolve: ["allowNone", "everySentence", "turn"],
      abstained: ["phrases", "relevant", "turn", "whenNothingRelevant"],
      blocked: ["direction", "rule"],
      warned: ["direction", "rule"],
      outputContains: ["caseSensitive"],
      outputMatches: [],
      maxSteps: [],
      maxTokens: [],
      maxToolCalls: [],
      maxCost: [],
    });
    const checks: [keyof typeof builtinAssertions, string, unknown[], unknown[]][] = [
      ["calledTool", "times", [0, 2], [-1, 1.5]],
      ["calledToolWith", "strict", [true], ["yes"]],
      ["calledToolWith", "times", [1], [-1, 0.5]],
      ["toolWasBlocked", "reason", ["rate_limited", "policy_denied", "mode_blocked", "approval_denied", "approval_expired", "guardrail"], ["denied", ""]],
      ["toolSequence", "ordered", [false], ["no"]],
      ["toolSequence", "allowExtra", [true], [1]],
      ["toolSequence", "args", ["strict", "partial", "ignore"], ["loose", ""]],
      ["failed", "code", ["max_steps"], [""]],
      ["retrievedChunk", "caseSensitive", [true], ["yes"]],
      ["retrievedChunk", "turn", [1, 3], [0, 1.5]],
      ["rankingMetric", "k", [1, 10], [0, -1]],
      ["rankingMetric", "min", [0, 0.5, 1], [1.5, -0.1]],
      ["citationsResolve", "everySentence", [true], ["yes"]],
      ["abstained", "whenNothingRelevant", [true], [1]],
      ["abstained", "relevant", [["leave"]], [[""]]],
      ["abstained", "phrases", [["no clue"]], [[""]]],
      ["abstained", "turn", [2], [0]],
      ["citationsResolve", "allowNone", [true], ["yes"]],
      ["citationsResolve", "turn", [1], [0]],
      ["rankingMetric", "turn", [1], [0]],
      ["blocked", "rule", ["secret:openai_key"], [1]],
      ["warned", "direction", ["input", "output"], ["both", ""]],
      ["outputContains", "caseSensitive", [false], ["no"]],
    ];
    for (const [name, option, good, bad] of checks) {
      for (const value of good) expect(accepts(assertionOptions(name), option, value), `${name}.${option} = ${JSON.stringify(value)}`).toBe(true);
      for (const value of bad) expect(accepts(assertionOptions(name), option, value), `${name}.${option} = ${JSON.stringify(value)}`).toBe(false);
    }
  });
});
