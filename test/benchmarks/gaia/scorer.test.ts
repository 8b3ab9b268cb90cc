import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractFinalAnswer, normalizeStr, pythonFloat, scoreGaia } from "../../../src/benchmarks/gaia/index.js";

const fixtures = join(import.meta.dirname, "../../../fixtures/gaia");
const rows = <T>(file: string): T[] =>
  readFileSync(join(fixtures, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);

describe("GAIA scorer: the official verdicts", () => {
  it("agrees with the official scorer on every dev case (Python's number parsing and \\s traps included)", () => {
    const cases = rows<{ model_answer: string; ground_truth: string; expected: boolean; note: string }>("scorer_cases.dev.jsonl");
    expect(cases.length).toBe(35);
    const disagreeing = cases.filter((row) => scoreGaia(row.model_answer, row.ground_truth).correct !== row.expected).map((row) => row.note);
    expect(disagreeing).toEqual([]);
  });

  it("agrees with CPython's question_scorer on 3,000 generated answer/ground-truth pairs", () => {
    const cases = rows<{ model_answer: string | null; ground_truth: string; expected: boolean }>("scorer.differential.jsonl");
    const disagreeing = cases.filter((row) => scoreGaia(row.model_answer, row.ground_truth).correct !== row.expected);
    expect(disagreeing).toEqual([]);
    // The set exercises both outcomes, not only "false".
    expect(cases.filter((row) => row.expected).length).toBeGreaterThan(1000);
  });

  it("names the branch that decided", () => {
    expect(scoreGaia("$1,000", "1000")).toEqual({ correct: true, branch: "number" });
    expect(scoreGaia("apple; banana", "apple, banana")).toEqual({ correct: true, branch: "list" });
    expect(scoreGaia("St. Louis", "St Louis")).toEqual({ correct: true, branch: "string" });
  });

  it("scores a missing answer as Python's None would", () => {
    expect(scoreGaia(null, "None")).toEqual({ correct: true, branch: "string" });
    expect(scoreGaia(null, "inf").correct).toBe(true); // None → "None" → not a number → inf: the official quirk
    expect(scoreGaia(null, "42").correct).toBe(false);
  });

  it("gives any answer credit against itself unless a NaN is involved (float('nan') != nan)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-composite", maxLength: 20 }), (text) => {
        fc.pre(!/nan/i.test(text));
        expect(scoreGaia(text, text).correct).toBe(true);
      }),
    );
    expect(scoreGaia("nan", "nan").correct).toBe(false);
  });
});

describe("Python's float()", () => {
  it("accepts and refuses exactly what CPython 3.11 does on 6,500 generated strings", () => {
    const cases = rows<{ input: string; valid: boolean; repr?: string }>("python-float.differential.jsonl");
    const wrong = cases.filter((row) => {
      const value = pythonFloat(row.input);
      return row.valid ? value === undefined || !Object.is(value, pythonFloat(row.repr as string)) : value !== undefined;
    });
    expect(wrong).toEqual([]);
    expect(cases.filter((row) => row.valid).length).toBeGreaterThan(1000);
  });

  it("reads JavaScript's own number spellings as the same double", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (value) => {
        // String(-0) is "0"; Python reads "-0" as -0.0 too.
        const spelled = Object.is(value, -0) ? "-0" : String(value);
        expect(Object.is(pythonFloat(spelled), value)).toBe(true);
      }),
    );
  });

  it.each([
    ["", undefined],
    ["0x10", undefined],
    ["1__0", undefined],
    ["_1", undefined],
    ["1_", undefined],
    ["1_000", 1000],
    ["\uff15", 5],
    ["\u0663.5", 3.5],
    [" \u2003 7 \n", 7],
    ["\ufeff7", undefined],
    ["\x1c7", undefined],
    ["5.", 5],
    [".5", 0.5],
    ["-Infinity", -Infinity],
    ["1e400", Infinity],
  ])("float(%j) is %s", (text, expected) => {
    expect(pythonFloat(text)).toBe(expected);
  });
});

describe("normalisation and extraction", () => {
  it("removes Python's whitespace set, not JavaScript's", () => {
    expect(normalizeStr("sea\u0085gull\x1c")).toBe("seagull");
    expect(normalizeStr("\ufeffParis")).toBe("\ufeffparis");
    expect(normalizeStr("don\u2019t")).toBe("don\u2019t");
    expect(normalizeStr("St. Louis", false)).toBe("st.louis");
  });

  it("takes the text after the last FINAL ANSWER marker, in any case, stripped as Python strips", () => {
    expect(extractFinalAnswer("Template: FINAL ANSWER: [X]\nThinking...\nFINAL ANSWER: 42 \n")).toBe("42");
    expect(extractFinalAnswer("final answer: Paris")).toBe("Paris");
    expect(extractFinalAnswer("no marker here")).toBeNull();
    expect(extractFinalAnswer("FINAL ANSWER:\ufeffParis")).toBe("\ufeffParis");
  });
});

describe("the gaia-exact scorer", () => {
  const score = async (value: unknown, expected: unknown, options: Record<string, unknown> = {}) => {
    const { getScorer } = await import("../../../scorers/index.js");
    return getScorer("gaia-exact").score({ value, expected, options } as never);
  };

  it("scores the answer after FINAL ANSWER and says which rule decided", async () => {
    await expect(score("Thinking...\nFINAL ANSWER: $1,000", "1000")).resolves.toMatchObject({
      pass: true,
      reason: '"$1,000" matches "1000" (compared as a number)',
      details: { answer: "$1,000", branch: "number" },
    });
    await expect(score("I think it is Paris.", "Paris")).resolves.toMatchObject({
      pass: false,
      reason: 'no "FINAL ANSWER:" in the reply (scored as None) does not match "Paris" (compared as a string)',
    });
    await expect(score("Paris", "paris", { extract: false })).resolves.toMatchObject({ pass: true });
  });

  it("refuses a ground truth that is not text, and fails a value that is not text", async () => {
    await expect(score("FINAL ANSWER: 4", 4)).rejects.toThrow(/gaia-exact needs the ground truth as a string/);
    await expect(score(4, "4")).resolves.toMatchObject({ pass: false, reason: expect.stringMatching(/^not text/) });
  });
});
