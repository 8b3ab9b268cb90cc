/** The bfcl-ast scorer inside an ordinary eval case, run by the eval engine. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectCases, defineEval, match, type EvalSpec } from "../../../src/eval/dsl/index.js";
import { runCases } from "../../../src/eval/runner/index.js";
import { getScorer } from "../../../scorers/index.js";

const fixtures = new URL("../../../fixtures/bfcl/v4/", import.meta.url);
const question = JSON.parse(readFileSync(new URL("BFCL_v4_simple_python.json", fixtures), "utf8").split("\n")[0] as string) as { question: { content: string }[][]; function: unknown[] };
const truthLine = readFileSync(new URL("possible_answer/BFCL_v4_simple_python.json", fixtures), "utf8").split("\n")[0] as string;
// The ground truth as JSON text, so that Python's int/float distinction survives.
const groundTruth = truthLine.slice(truthLine.indexOf("[{"), truthLine.lastIndexOf("]") + 1);
const expected = { category: "simple_python", function: question.function, ground_truth: groundTruth };
const agent = { name: "bfcl-case", max_steps: 1, llm: { provider: "openai" as const } };

async function run(reply: string): Promise<{ status: string; reason: string | undefined }> {
  const spec: EvalSpec = {
    name: `replies ${reply}`,
    config: agent,
    mock: { responses: [{ text: reply }] },
    test: async (t) => {
      await t.send(question.question[0]?.[0]?.content ?? "");
      t.check(t.reply, match.scorer("bfcl-ast", expected, { mode: "prompt" }));
    },
  };
  const cases = await collectCases(undefined, async () => void defineEval(spec));
  const [result] = await runCases(cases.map((definition) => ({ id: definition.name, file: "test", case: definition })), { mode: "mock" });
  const assertion = result?.attempts[0]?.assertions[0];
  return { status: result?.status ?? "missing", reason: assertion?.reason };
}

describe("the bfcl-ast scorer", () => {
  it("is registered", () => {
    expect(getScorer("bfcl-ast").name).toBe("bfcl-ast");
  });

  it("passes an output the official checker accepts, in an eval case", async () => {
    expect((await run("[calculate_triangle_area(base=10, height=5, unit='units')]")).status).toBe("passed");
  });

  it("fails one it rejects, naming the official error type", async () => {
    const result = await run("[calculate_triangle_area(base=10.0, height=5)]");
    expect(result.status).toBe("failed");
    expect(result.reason).toContain("type_error:simple");
  });

  it("checks FC calls given as the run recorded them", async () => {
    const scorer = getScorer("bfcl-ast");
    const score = (args: string): unknown =>
      scorer.score({ value: [{ name: "calculate_triangle_area", arguments: args }], expected, options: {}, case: { name: "x", file: undefined, tags: [] }, output: "", run: undefined as never, judge: undefined });
    expect(score('{"base": 10, "height": 5}')).toMatchObject({ pass: true });
    expect(score('{"base": 10.0, "height": 5}')).toMatchObject({ pass: false });
  });
});

describe("the bfcl-ast scorer's inputs and verdicts", () => {
  const scorer = getScorer("bfcl-ast");
  const score = (value: unknown, options: object = {}, entry: unknown = expected): unknown =>
    scorer.score({ value, expected: entry, options, case: { name: "x", file: undefined, tags: [] }, output: "", run: undefined as never, judge: undefined } as never);
  const text = "[calculate_triangle_area(base=10, height=5, unit='units')]";
  const accepted = { value: 1, pass: true, reason: "BFCL's checker accepts the output for simple_python" };

  it("text is prompting-mode output unless the mode says fc", () => {
    expect(score(text)).toStrictEqual(accepted);
    expect(score(text, { mode: "prompt" })).toStrictEqual(accepted);
    expect(score(text, { mode: "fc" })).toStrictEqual({
      value: 0,
      pass: false,
      reason: "BFCL's checker rejects it: ast_decoder:decoder_failed (Invalid syntax. Failed to decode AST. 'str' object has no attribute 'keys')",
      details: { errorType: "ast_decoder:decoder_failed", error: ["Invalid syntax. Failed to decode AST. 'str' object has no attribute 'keys'"] },
    });
  });

  it("calls may be recorded ({name, arguments}, arguments as text or as an object) or BFCL's own {name: argumentsJson}", () => {
    expect(score([{ name: "calculate_triangle_area", arguments: { base: 10, height: 5 } }])).toStrictEqual(accepted);
    expect(score([{ calculate_triangle_area: '{"base": 10, "height": 5}' }])).toStrictEqual(accepted);
    // Half of a recorded call is taken as BFCL's form, where "name" is then the function's name.
    expect(score([{ name: "calculate_triangle_area" }])).toMatchObject({
      pass: false,
      details: { errorType: "ast_decoder:decoder_failed", error: ["Invalid syntax. Failed to decode AST. Expecting value at char 0"] },
    });
    expect(score([{ arguments: "{}" }])).toMatchObject({ pass: false, details: { errorType: "simple_function_checker:wrong_func_name" } });
  });

  it("anything else is no output, said so", () => {
    for (const value of [42, { name: "calculate_triangle_area" }, null]) {
      expect(score(value)).toStrictEqual({ value: 0, pass: false, reason: "the value is neither the model's text nor a list of calls" });
    }
  });

  it("ground truth as JSON text keeps Python's float; without one (irrelevance) any call fails", () => {
    expect(score("[calculate_triangle_area(base=10.0, height=5)]")).toMatchObject({ pass: false, details: { errorType: "type_error:simple" } });
    // As an object the ground truth has JSON's numbers, read as Python would read them.
    const parsedTruth = { ...expected, ground_truth: JSON.parse(groundTruth) as unknown[] };
    expect(score(text, {}, parsedTruth)).toStrictEqual(accepted);
    expect(score("[calculate_triangle_area(base=11, height=5)]", {}, parsedTruth)).toMatchObject({ pass: false });
    const irrelevance = { category: "irrelevance", function: question.function };
    expect(score("I cannot help with that.", {}, irrelevance)).toStrictEqual({ value: 1, pass: true, reason: "BFCL's checker accepts the output for irrelevance" });
    expect(score(text, {}, irrelevance)).toMatchObject({ pass: false, details: { errorType: "irrelevance_error:decoder_success" } });
  });

  it("an expected value that is not a BFCL entry is refused before scoring, naming what is missing", () => {
    expect(scorer.checkExpected?.(expected)).toBeUndefined();
    expect(scorer.checkExpected?.({ category: "simple_python" })).toBe("bfcl-ast needs { category, function, ground_truth }: Invalid input: expected array, received undefined");
    expect(scorer.checkExpected?.({ category: "simple_python", function: [{}] })).toBe("bfcl-ast needs { category, function, ground_truth }: Invalid input: expected string, received undefined");
  });
});
