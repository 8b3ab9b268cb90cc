import fc from "fast-check";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  budgetsScorer,
  diceSimilarity,
  exactScorer,
  getScorer,
  guardrailScorer,
  includesScorer,
  jaccardSimilarity,
  jsonSchemaScorer,
  levenshteinSimilarity,
  listScorers,
  llmJudgeScorer,
  noToolsScorer,
  numericScorer,
  parseJudgement,
  readNumber,
  regexScorer,
  registerScorer,
  retrievedChunkScorer,
  runStatusScorer,
  similarityScorer,
  toolBlockedScorer,
  toolCalledScorer,
  toolNotCalledScorer,
  toolTrajectoryScorer,
} from "../../scorers/index.js";
import { viewRun } from "../../src/journal/index.js";
import { deepEqual, differences, matchesPartial } from "../../scorers/support.js";
import { checkResult, defineScorer } from "../../src/scoring/index.js";
import { type JudgeService, type Scorer } from "../../src/contracts/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { answer, blockedCall, buildLog, done, failedCall, finished, guardrail, requested, retrieval, user } from "./log.js";

/** A result with every field optional, so a test can read `pass` without narrowing first. */
type AnyResult = { skipped?: boolean; value?: number; pass?: boolean; reason: string; details?: unknown };

function score<O>(scorer: Scorer<O>, input: { events?: RunEvent[]; value?: unknown; expected?: unknown; options?: O; judge?: JudgeService }): AnyResult {
  const run = viewRun(input.events ?? buildLog([]));
  const result = scorer.score({
    case: { name: "case", file: undefined, tags: [] },
    run,
    output: run.output,
    value: "value" in input ? input.value : run.output,
    expected: input.expected,
    options: (input.options ?? {}) as O,
    judge: input.judge,
  });
  if (result instanceof Promise) throw new Error("an asynchronous scorer: await its score() instead");
  return result as AnyResult;
}

const calls = buildLog([
  user("go"),
  answer("", 1, [{ id: "c1", name: "search", arguments: "{}" }]),
  requested("c1", "search", { query: "a", k: 2 }),
  finished("c1", "search", []),
  requested("c2", "write_file", { path: ".env" }),
  blockedCall("c2", "write_file", "policy_denied", "secrets never go into files"),
  requested("c3", "calc", { expression: "1/0" }),
  failedCall("c3", "calc", "division by zero"),
  requested("c4", "calc", { expression: "2+2" }),
  finished("c4", "calc", { value: 4 }),
  answer("4", 2),
  done("4", "completed", 2),
]);

describe("tool scorers read tool events, and only a finished call counts as called", () => {
  it("tool-called passes for a finished call, with a subset or exact arguments, and a count", () => {
    expect(score(toolCalledScorer, { events: calls, options: { tool: "search" } })).toMatchObject({ pass: true, value: 1 });
    expect(score(toolCalledScorer, { events: calls, options: { tool: "calc", args: { expression: "2+2" } } })).toMatchObject({ pass: true });
    expect(score(toolCalledScorer, { events: calls, options: { tool: "search", args: { query: "a" }, argsMatch: "strict" } }).reason).toMatch(
      /no call of search had arguments/,
    );
    expect(score(toolCalledScorer, { events: calls, options: { tool: "calc", times: 2 } })).toMatchObject({ pass: false, reason: "calc was called 1 time, expected 2" });
  });

  it("tool-called fails for a blocked or failed call, and says which it was", () => {
    expect(score(toolCalledScorer, { events: calls, options: { tool: "write_file" } })).toMatchObject({
      pass: false,
      reason: 'write_file was requested 1 time but never ran to completion: write_file({"path":".env"}) blocked: policy_denied',
    });
    expect(score(toolCalledScorer, { events: calls, options: { tool: "calc", args: { expression: "1/0" } } }).pass).toBe(false);
  });

  it("tool-not-called passes for a tool that was only blocked", () => {
    expect(score(toolNotCalledScorer, { events: calls, options: { tool: "write_file" } })).toMatchObject({ pass: true });
    expect(score(toolNotCalledScorer, { events: calls, options: { tool: "search" } })).toMatchObject({ pass: false });
  });

  it("tool-blocked reads tool.blocked events, optionally for one reason", () => {
    expect(score(toolBlockedScorer, { events: calls, options: { tool: "write_file" } })).toMatchObject({
      pass: true,
      reason: "write_file was blocked (policy_denied: secrets never go into files)",
    });
    expect(score(toolBlockedScorer, { events: calls, options: { tool: "write_file", reason: "mode_blocked" } }).reason).toBe(
      "write_file was blocked with policy_denied, expected mode_blocked",
    );
    // A call that ran and failed is not blocked.
    expect(score(toolBlockedScorer, { events: calls, options: { tool: "calc" } }).pass).toBe(false);
  });

  it("no-tools counts every request, blocked and failed ones included", () => {
    expect(score(noToolsScorer, { events: calls }).pass).toBe(false);
    expect(score(noToolsScorer, { events: buildLog([user("hi"), answer("hello"), done("hello")]) }).pass).toBe(true);
  });
});

describe("tool-trajectory", () => {
  const run = buildLog([
    requested("a", "search", { q: 1 }),
    finished("a", "search", null),
    requested("b", "read", { path: "x" }),
    finished("b", "read", null),
    requested("c", "write", { path: "y" }),
    finished("c", "write", null),
  ]);
  const trajectory = (expected: unknown, options: object) => score(toolTrajectoryScorer, { events: run, expected, options });

  it("ordered: exactly these calls in this order, or with others between them when allowExtra", () => {
    expect(trajectory(["search", "read", "write"], {}).pass).toBe(true);
    expect(trajectory(["search", "write"], {})).toMatchObject({ pass: false, value: 2 / 3 });
    expect(trajectory(["search", "write"], { allowExtra: true }).pass).toBe(true);
    expect(trajectory(["write", "search"], { allowExtra: true })).toMatchObject({ pass: false, value: 0.5 });
  });

  it("unordered and superset: the same calls in any order, or at least these", () => {
    expect(trajectory(["write", "search", "read"], { order: "unordered" }).pass).toBe(true);
    expect(trajectory(["write", "search"], { order: "unordered" }).pass).toBe(false);
    expect(trajectory(["write", "search"], { order: "superset" }).pass).toBe(true);
    expect(trajectory(["write", "delete"], { order: "superset" })).toMatchObject({ pass: false, value: 0.5 });
  });

  it("unordered: each expected entry gets its own call by a full matching, whatever order the entries are written in", () => {
    const twoSearches = buildLog([requested("x", "search", { q: "a" }), finished("x", "search", null), requested("y", "search", { q: "b" }), finished("y", "search", null)]);
    const loose = { name: "search" };
    const strict = { name: "search", args: { q: "a" } };
    for (const order of ["unordered", "superset"] as const) {
      // First-fit would give the loose entry the q:"a" call and leave the strict one nothing.
      expect(score(toolTrajectoryScorer, { events: twoSearches, expected: [loose, strict], options: { order } }).pass, order).toBe(true);
      expect(score(toolTrajectoryScorer, { events: twoSearches, expected: [strict, loose], options: { order } }).pass, order).toBe(true);
    }
    expect(score(toolTrajectoryScorer, { events: twoSearches, expected: [strict, strict], options: { order: "unordered" } })).toMatchObject({ pass: false, value: 0.5 });
  });

  it("unordered: the verdict does not depend on the order of the expected entries (property)", () => {
    const call = fc.record({ name: fc.constantFrom("a", "b"), q: fc.constantFrom(1, 2) });
    const entry = fc.record({ name: fc.constantFrom("a", "b"), q: fc.option(fc.constantFrom(1, 2), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 5 }), fc.array(entry, { maxLength: 5 }), (made, wanted) => {
        const events = buildLog(made.flatMap((item, index) => [requested(`c${index}`, item.name, { q: item.q }), finished(`c${index}`, item.name, null)]));
        const expected = wanted.map((item) => (item.q === undefined ? { name: item.name } : { name: item.name, args: { q: item.q } }));
        const forward = score(toolTrajectoryScorer, { events, expected, options: { order: "unordered" } });
        const backward = score(toolTrajectoryScorer, { events, expected: [...expected].reverse(), options: { order: "unordered" } });
        expect([backward.pass, backward.value]).toEqual([forward.pass, forward.value]);
      }),
    );
  });

  it("subset: every call made is among the expected ones", () => {
    expect(trajectory(["search", "read", "write", "delete"], { order: "subset" }).pass).toBe(true);
    expect(trajectory(["search", "read"], { order: "subset" })).toMatchObject({ pass: false, value: 2 / 3 });
  });

  it("compares arguments strictly, partially or not at all", () => {
    const withArgs = [{ name: "search", args: { q: 1 } }, { name: "read", args: { path: "x" } }, { name: "write" }];
    expect(trajectory(withArgs, { args: "strict" }).pass).toBe(true);
    expect(trajectory([{ name: "search", args: {} }, "read", "write"], { args: "strict" }).pass).toBe(false);
    expect(trajectory([{ name: "search", args: {} }, "read", "write"], { args: "partial" }).pass).toBe(true);
    expect(trajectory([{ name: "search", args: { q: 2 } }, "read", "write"], { args: "ignore" }).pass).toBe(true);
  });

  it("an ordered trajectory without extras passes exactly when it equals the calls made (property)", () => {
    const names = fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 6 });
    fc.assert(
      fc.property(names, names, (made, expected) => {
        const events = buildLog(made.flatMap((name, index) => [requested(`c${index}`, name, {}), finished(`c${index}`, name, null)]));
        const result = score(toolTrajectoryScorer, { events, expected, options: { order: "ordered" } });
        expect(result.pass).toBe(made.join() === expected.join());
        expect(result.value).toBeGreaterThanOrEqual(0);
        expect(result.value).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("run and log scorers", () => {
  it("run-status reads the last turn's run.finished", () => {
    const failed = buildLog([user("x"), done("", "failed")]);
    expect(score(runStatusScorer, { events: failed, options: { status: "failed", code: "max_steps" } }).pass).toBe(true);
    expect(score(runStatusScorer, { events: failed, options: { status: "completed" } }).reason).toBe(
      "expected the run to be completed; it was failed (max_steps: out of steps)",
    );
    expect(score(runStatusScorer, { events: buildLog([user("x")]), options: { status: "completed" } }).reason).toBe(
      "expected the run to be completed; it did not finish its turn",
    );
  });

  it("retrieved-chunk matches text, id, source (or its end) and rank", () => {
    const events = buildLog([retrieval("c1", "keys", [{ id: "docs/replay.md#2", source: "docs/replay.md", text: "Request keys are sha256" }, { id: "docs/a.md#1", source: "docs/a.md", text: "other" }])]);
    expect(score(retrievedChunkScorer, { events, options: { text: "REQUEST KEYS" } }).pass).toBe(true);
    expect(score(retrievedChunkScorer, { events, options: { text: "REQUEST KEYS", caseSensitive: true } }).pass).toBe(false);
    expect(score(retrievedChunkScorer, { events, options: { source: "replay.md", maxRank: 1 } }).pass).toBe(true);
    expect(score(retrievedChunkScorer, { events, options: { id: "docs/a.md#1", maxRank: 1 } }).reason).toBe(
      "no retrieved chunk with id docs/a.md#1 at rank <= 1; retrieved: docs/replay.md#2#rank1, docs/a.md#1#rank2",
    );
  });

  it("guardrail finds a firing by action, rule and direction", () => {
    const events = buildLog([guardrail("block", "prompt_injection:ignore_instructions", "input"), guardrail("warn", "output_pattern:refund")]);
    expect(score(guardrailScorer, { events, options: { action: "block", direction: "input" } }).pass).toBe(true);
    expect(score(guardrailScorer, { events, options: { action: "block", direction: "output" } }).reason).toBe(
      "expected a output guardrail block; guardrail events: input block by prompt_injection:ignore_instructions, output warn by output_pattern:refund",
    );
    expect(score(guardrailScorer, { events, options: { action: "warn", rule: "output_pattern:refund" } }).pass).toBe(true);
  });

  it("budgets: within, over (value falls with the overrun), and unknown cost skipped, never passed", () => {
    expect(score(budgetsScorer, { events: calls, options: { maxSteps: 2, maxTokens: 30 } })).toMatchObject({ pass: true, value: 1 });
    expect(score(budgetsScorer, { events: calls, options: { maxSteps: 1 } })).toMatchObject({ pass: false, value: 0.5, reason: "over budget: steps 2 of 1" });
    expect(score(budgetsScorer, { events: calls, options: { maxCost: 1 } })).toMatchObject({
      skipped: true,
      reason: "cannot check cost (the model has no price: set llm.prices)",
    });
    // Another budget that held does not turn the unknown one into a pass.
    expect(score(budgetsScorer, { events: calls, options: { maxCost: 1, maxSteps: 5 } })).toMatchObject({
      skipped: true,
      reason: "cannot check cost (the model has no price: set llm.prices); within budget: steps 2 of 5",
    });
    // One that was exceeded still fails, whatever is unknown.
    expect(score(budgetsScorer, { events: calls, options: { maxCost: 1, maxSteps: 1 } })).toMatchObject({ pass: false, reason: expect.stringMatching(/^over budget: steps 2 of 1; unknown: cost/) });
  });

  it("budgets: tokens are unknown when a call reported no usage; a lower bound over the limit still fails", () => {
    const unknownUsage = buildLog([user("go"), { ...answer("hi"), response: { text: "hi", toolCalls: [], stopReason: "end", usage: null } } as never, answer("again", 2), done("again")]);
    expect(viewRun(unknownUsage).usage.unknownCalls).toBe(1);
    expect(score(budgetsScorer, { events: unknownUsage, options: { maxTokens: 1000, maxSteps: 5 } })).toMatchObject({
      skipped: true,
      reason: "cannot check tokens (1 model call(s) reported no usage); within budget: steps 2 of 5",
    });
    expect(score(budgetsScorer, { events: unknownUsage, options: { maxTokens: 10 } })).toMatchObject({ pass: false, reason: "over budget: tokens 15 of 10" });
  });
});

describe("structural differences", () => {
  it("exact names the first differing paths and both values, in the reason and the details", () => {
    const result = score(exactScorer, { value: { a: { b: [1, 2, 4] }, c: "x", d: 1 }, expected: { a: { b: [1, 2, 3] }, c: "x", e: 2 } });
    expect(result.reason).toMatch(/^at a\.b\[2\]: expected 3, got 4; at d: expected \(no such key\), got 1; at e: expected 2, got \(missing\)/);
    expect(result.details).toMatchObject({ differences: [{ path: "a.b[2]", expected: 3, actual: 4 }, { path: "d" }, { path: "e" }] });
    expect(score(exactScorer, { value: "the quick brown fox", expected: "the quick red fox" }).reason).toMatch(/^first difference at character 10: expected "the quick red fox", got "the quick brown fox"/);
  });

  it("differences is empty exactly when deepEqual holds (strict), and when matchesPartial holds (partial)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(differences(a, b).length === 0).toBe(deepEqual(a, b));
        expect(differences(a, b, "partial").length === 0).toBe(matchesPartial(b, a));
        expect(differences(a, a)).toEqual([]);
      }),
    );
  });
});

describe("value scorers", () => {
  it("exact: deep equality; text may ignore case and surrounding space", () => {
    expect(score(exactScorer, { value: { a: [1, { b: 2 }] }, expected: { a: [1, { b: 2 }] } }).pass).toBe(true);
    expect(score(exactScorer, { value: { a: 1, b: undefined }, expected: { a: 1 } }).pass).toBe(true);
    expect(score(exactScorer, { value: " Lisbon ", expected: "lisbon", options: { caseSensitive: false, trim: true } }).pass).toBe(true);
    expect(score(exactScorer, { value: 4, expected: "4" }).reason).toBe('expected "4", got 4');
  });

  it("exact: dates, maps, sets and regular expressions are compared by what they hold, never as empty objects", () => {
    const exact = (value: unknown, expected: unknown) => score(exactScorer, { value, expected }).pass;
    expect(exact(new Date("2026-01-01"), new Date("2026-01-01"))).toBe(true);
    expect(exact(new Date("2026-01-01"), new Date("2027-01-01"))).toBe(false);
    expect(exact(new Map([["a", 1]]), new Map([["a", 1]]))).toBe(true);
    expect(exact(new Map([["a", 1]]), new Map([["a", 2]]))).toBe(false);
    expect(exact(new Map([["a", 1]]), new Map())).toBe(false);
    expect(exact(new Map([[{ k: 1 }, "x"]]), new Map([[{ k: 1 }, "x"]]))).toBe(true);
    expect(exact(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(exact(new Set([1, 2]), new Set([1, 3]))).toBe(false);
    expect(exact(/a/i, /a/i)).toBe(true);
    expect(exact(/a/i, /a/g)).toBe(false);
    expect(exact(new Date(0), {})).toBe(false);
    expect(exact({ when: new Date(0) }, { when: new Date(1) })).toBe(false);
    expect(score(exactScorer, { value: new Set([1]), expected: new Set([2]) }).reason).toBe('expected {"Set":[2]}, got {"Set":[1]}');
  });

  it("includes: all or any of several substrings; the value is the share found", () => {
    expect(score(includesScorer, { value: "a b c", expected: ["a", "z"] })).toMatchObject({ pass: false, value: 0.5 });
    expect(score(includesScorer, { value: "a b c", expected: ["a", "z"], options: { mode: "any" } })).toMatchObject({ pass: true, value: 1 });
    expect(score(includesScorer, { value: [1, { x: 2 }], expected: { x: 2 } }).pass).toBe(true);
  });

  it("regex accepts a RegExp or a pattern string, with flags", () => {
    expect(score(regexScorer, { value: "Total: 42", expected: /total: (\d+)/i })).toMatchObject({ pass: true, details: { match: "Total: 42" } });
    expect(score(regexScorer, { value: "Total: 42", expected: "total", options: { flags: "i" } }).pass).toBe(true);
  });

  it("json-schema validates data or the JSON in a text, against a JSON Schema or a zod schema", () => {
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] };
    expect(score(jsonSchemaScorer, { value: '```json\n{"n": 3}\n```', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: { n: 0 }, expected: schema }).reason).toMatch(/^invalid: at n: /);
    // Every violation is reported, not only the first.
    const person = { type: "object", properties: { age: { type: "integer" }, email: { type: "string" } }, required: ["age", "email"] };
    const both = score(jsonSchemaScorer, { value: { age: "old" }, expected: person });
    expect(both.reason).toMatch(/^2 violations: at age: .*; at email: /);
    expect(both.details).toMatchObject({ issues: [{ path: "age" }, { path: "email" }] });
    expect(score(jsonSchemaScorer, { value: "not json", expected: schema }).reason).toMatch(/^the text is not JSON/);
    expect(score(jsonSchemaScorer, { value: { n: "x" }, expected: z.object({ n: z.string() }) }).pass).toBe(true);
  });

  it("numeric reads the number from text and allows an absolute or relative tolerance", () => {
    expect(readNumber("2 + 2 = 4.", "last")).toBe(4);
    expect(readNumber("It costs 1,234.5 dollars", "only")).toBe(1234.5);
    expect(readNumber("1 and 2", "only")).toBe('2 numbers in "1 and 2"; expected one');
    expect(score(numericScorer, { value: "about 99", expected: 100, options: { relative: 0.02 } }).pass).toBe(true);
    expect(score(numericScorer, { value: 5, expected: 4 })).toMatchObject({ pass: false, value: 0.75 });
    expect(score(numericScorer, { value: "no digits", expected: 4 })).toMatchObject({ pass: false, reason: 'no number in "no digits"' });
  });

  it("similarity measures stay within 0..1, are 1 for equal texts, and are symmetric (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (a, b) => {
        for (const measure of [levenshteinSimilarity, diceSimilarity, jaccardSimilarity]) {
          const value = measure(a, b);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
          expect(measure(a, a)).toBe(1);
          expect(measure(b, a)).toBeCloseTo(value, 10);
        }
      }),
    );
    expect(score(similarityScorer, { value: "kitten", expected: "sitting", options: { min: 0.5 } })).toMatchObject({ pass: true });
    expect(score(similarityScorer, { value: "kitten", expected: "sitting" }).value).toBeCloseTo(1 - 3 / 7);
  });
});

describe("llm-judge", () => {
  const judge = (text: string, status: "completed" | "failed" = "completed"): JudgeService & { prompts: string[] } => {
    const prompts: string[] = [];
    return {
      prompts,
      ask: async (request) => {
        prompts.push(request.prompt);
        return { runId: "run_judge", status, text, error: status === "failed" ? { code: "script_exhausted", message: "no answer" } : undefined };
      },
    };
  };
  const run = viewRun(buildLog([user("What is 2+2?"), answer("4"), done("4")]));
  const ask = (service: JudgeService, options: object) =>
    llmJudgeScorer.score({ case: { name: "c", file: undefined, tags: [] }, run, output: "4", value: "4", expected: "four", options: { rubric: "Correct?", ...options }, judge: service });

  it("asks with the rubric, the input, the response and the reference, and reads a JSON verdict", async () => {
    const service = judge('Sure. {"score": 0.8, "pass": true, "reason": "right"}');
    expect(await ask(service, {})).toEqual({ value: 0.8, pass: true, reason: "judge: right", details: { score: 0.8, judgeRunId: "run_judge" } });
    expect(service.prompts[0]).toBe("Rubric:\nCorrect?\n\nUser input:\nWhat is 2+2?\n\nResponse:\n4\n\nReference answer:\nfour");
  });

  it("uses passAt when the judge gives no verdict, accepts PASS/FAIL, and fails loudly on anything else", async () => {
    expect(parseJudgement('{"score": 0.4}', 0.5)).toMatchObject({ pass: false, value: 0.4 });
    expect(parseJudgement("PASS: fine", 0.5)).toMatchObject({ pass: true, value: 1, reason: "judge: fine" });
    expect(parseJudgement("I think it is good", 0.5)).toMatchObject({ pass: false, value: 0 });
    expect((await ask(judge("", "failed"), {})).reason).toBe("the judge run run_judge failed: script_exhausted: no answer");
  });
});

describe("the scorer registry and contract", () => {
  it("holds every built-in, and users add their own", () => {
    const names = listScorers().map((scorer) => scorer.name);
    for (const name of ["exact", "includes", "regex", "json-schema", "tool-trajectory", "numeric", "similarity", "budgets", "llm-judge"]) expect(names).toContain(name);
    const mine = registerScorer(defineScorer({ name: "test/always", description: "always passes", score: () => ({ value: 1, pass: true, reason: "yes" }) }));
    expect(getScorer("test/always")).toBe(mine);
    // The same definition again is harmless (an eval file loaded twice); another one is an error.
    registerScorer(defineScorer({ name: "test/always", description: "always passes", score: () => ({ value: 1, pass: true, reason: "yes" }) }));
    expect(() => registerScorer(defineScorer({ name: "test/always", description: "different", score: () => ({ value: 0, pass: false, reason: "" }) }))).toThrow(
      /a scorer named "test\/always" is already registered/,
    );
    expect(() => getScorer("numerik")).toThrow(/no scorer named "numerik" \(did you mean "numeric"\?\)/);
    // A built-in is shared by every eval file of a run: one file may not change another's verdicts.
    const lenient = defineScorer({ name: "exact", description: "lenient", score: () => ({ value: 1, pass: true, reason: "anything goes" }) });
    expect(() => registerScorer(lenient, { replace: true })).toThrow(/"exact" is a built-in scorer and cannot be replaced .*e\.g\. "my\/exact"/);
    expect(getScorer("exact")).toBe(exactScorer);
    expect(() => defineScorer({ name: "Bad Name", description: "", score: () => ({ skipped: true, reason: "" }) })).toThrow(/lower-case words/);
  });

  it("refuses results that would make a report lie", () => {
    expect(() => checkResult({ value: 1.5, pass: true, reason: "" }, "s")).toThrow(/a score is a number from 0 to 1/);
    expect(() => checkResult({ value: Number.NaN, pass: true, reason: "" }, "s")).toThrow(/value NaN/);
    expect(() => checkResult({ value: 1, reason: "" }, "s")).toThrow(/no boolean "pass"/);
    expect(checkResult({ skipped: true, reason: "n/a", value: 1 }, "s")).toEqual({ skipped: true, reason: "n/a" });
  });
});
