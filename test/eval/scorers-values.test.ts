/** The value scorers (exact, includes, regex, json-schema, numeric, similarity): verdict, value and reason. */
import fc from "fast-check";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  diceSimilarity,
  exactScorer,
  includesScorer,
  jaccardSimilarity,
  jsonSchemaScorer,
  levenshteinSimilarity,
  numericScorer,
  readNumber,
  regexScorer,
  similarityScorer,
} from "../../scorers/index.js";
import { score } from "./scoring.js";

describe("exact", () => {
  it("passes equal values and says so, fails others saying where they differ and naming both", () => {
    expect(score(exactScorer, { value: { a: [1] }, expected: { a: [1] } })).toEqual({ value: 1, pass: true, reason: 'equals {"a":[1]}' });
    expect(score(exactScorer, { value: "Lisbon", expected: "Porto" })).toEqual({
      value: 0,
      pass: false,
      reason: 'first difference at character 0: expected "Porto", got "Lisbon" (expected "Porto", got "Lisbon")',
      details: { expected: "Porto", actual: "Lisbon" },
    });
    expect(score(exactScorer, { value: [1, 2], expected: [1, 3] })).toEqual({
      value: 0,
      pass: false,
      reason: "at [1]: expected 3, got 2 (expected [1,3], got [1,2])",
      details: { expected: [1, 3], actual: [1, 2], differences: [{ path: "[1]", expected: 3, actual: 2 }] },
    });
    expect(score(exactScorer, { value: 4, expected: "4" })).toMatchObject({ reason: 'expected "4", got 4', details: { differences: [{ path: "(root)", expected: "4", actual: 4 }] } });
  });

  it("compares text exactly unless told to ignore case or surrounding space", () => {
    expect(score(exactScorer, { value: "Lisbon", expected: "lisbon" }).pass).toBe(false);
    expect(score(exactScorer, { value: "Lisbon", expected: "lisbon", options: { caseSensitive: false } }).pass).toBe(true);
    expect(score(exactScorer, { value: " Lisbon\n", expected: "Lisbon" }).pass).toBe(false);
    expect(score(exactScorer, { value: " Lisbon\n", expected: "Lisbon", options: { trim: true } }).pass).toBe(true);
    expect(score(exactScorer, { value: "a", expected: "b", options: { trim: true, caseSensitive: false } }).pass).toBe(false);
  });

  it("applies the text options only when both sides are text", () => {
    expect(score(exactScorer, { value: 4, expected: "4", options: { trim: true, caseSensitive: false } })).toMatchObject({ pass: false, reason: 'expected "4", got 4' });
    expect(score(exactScorer, { value: " A ", expected: ["a"], options: { trim: true, caseSensitive: false } }).pass).toBe(false);
  });
});

describe("includes", () => {
  it("passes when the text contains the substring, naming it", () => {
    expect(score(includesScorer, { value: "The capital is Lisbon.", expected: "Lisbon" })).toEqual({ value: 1, pass: true, reason: 'the text contains "Lisbon"' });
  });

  it("fails when it does not, showing the text", () => {
    expect(score(includesScorer, { value: "The capital is Porto.", expected: "Lisbon" })).toEqual({
      value: 0,
      pass: false,
      reason: 'the text does not contain "Lisbon"; it was "The capital is Porto."',
    });
  });

  it("in mode all, needs every item and scores the share found", () => {
    expect(score(includesScorer, { value: "a b c", expected: ["a", "b"] })).toEqual({ value: 1, pass: true, reason: 'the text contains "a", "b"' });
    expect(score(includesScorer, { value: "a b c", expected: ["a", "y", "z"] })).toEqual({
      value: 1 / 3,
      pass: false,
      reason: 'the text does not contain "y", "z"; it was "a b c"',
    });
  });

  it("in mode any, needs one item and scores 1 or 0", () => {
    expect(score(includesScorer, { value: "a b c", expected: ["z", "b"], options: { mode: "any" } })).toEqual({ value: 1, pass: true, reason: 'the text contains "b"' });
    expect(score(includesScorer, { value: "a b c", expected: ["y", "z"], options: { mode: "any" } })).toEqual({
      value: 0,
      pass: false,
      reason: 'the text does not contain "y" or "z"; it was "a b c"',
    });
  });

  it("compares case-insensitively when told to", () => {
    expect(score(includesScorer, { value: "LISBON", expected: "lisbon" }).pass).toBe(false);
    expect(score(includesScorer, { value: "LISBON", expected: "lisbon", options: { caseSensitive: false } }).pass).toBe(true);
  });

  it("looks for items in an array by deep equality, and reads other values as text", () => {
    expect(score(includesScorer, { value: [1, { x: 2 }], expected: [{ x: 2 }] })).toEqual({ value: 1, pass: true, reason: 'the array contains {"x":2}' });
    expect(score(includesScorer, { value: [1, { x: 2 }], expected: { x: 3 } })).toEqual({ value: 0, pass: false, reason: 'the array does not contain {"x":3}; it was [1,{"x":2}]' });
    expect(score(includesScorer, { value: { answer: 42 }, expected: "42" }).pass).toBe(true);
    expect(score(includesScorer, { value: 1234, expected: 23 }).pass).toBe(true);
  });

  it("passes exactly when the text contains every non-empty substring asked for (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), (text, wanted) => {
        const result = score(includesScorer, { value: text, expected: wanted });
        expect(result.pass).toBe(wanted.every((item) => text.includes(item)));
        expect(result.value).toBeCloseTo(wanted.filter((item) => text.includes(item)).length / wanted.length, 10);
      }),
    );
  });
});

describe("regex", () => {
  it("passes on a match, with the match and where it starts", () => {
    expect(score(regexScorer, { value: "Order total: 42 EUR", expected: /total: (\d+)/i })).toEqual({
      value: 1,
      pass: true,
      reason: 'matches /total: (\\d+)/i at "total: 42"',
      details: { match: "total: 42", index: 6 },
    });
  });

  it("fails without one, showing the text and the pattern", () => {
    expect(score(regexScorer, { value: "Order total: none", expected: "total: \\d+" })).toEqual({
      value: 0,
      pass: false,
      reason: '"Order total: none" does not match /total: \\d+/',
    });
  });

  it("takes flags that replace the pattern's own", () => {
    expect(score(regexScorer, { value: "TOTAL", expected: /total/ }).pass).toBe(false);
    expect(score(regexScorer, { value: "TOTAL", expected: /total/, options: { flags: "i" } }).pass).toBe(true);
    expect(score(regexScorer, { value: "TOTAL", expected: /total/i, options: { flags: "" } }).pass).toBe(false);
  });

  it("reads a value that is not text as text", () => {
    expect(score(regexScorer, { value: { n: 42 }, expected: /"n":42/ }).pass).toBe(true);
  });
});

describe("json-schema", () => {
  const schema = { type: "object", properties: { n: { type: "integer", minimum: 1 }, tags: { type: "array", items: { type: "string" } } }, required: ["n"] };

  it("passes data valid against a JSON Schema", () => {
    expect(score(jsonSchemaScorer, { value: { n: 3 }, expected: schema })).toEqual({ value: 1, pass: true, reason: "valid against the schema" });
  });

  it("names every violation with its place, the first five in the reason", () => {
    const result = score(jsonSchemaScorer, { value: { n: 0, tags: ["a", 5] }, expected: schema });
    expect(result).toMatchObject({ value: 0, pass: false });
    expect(result.reason).toMatch(/^2 violations: at n: .*1.*; at tags\.1: .*string/i);
    expect((result.details as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual(["n", "tags.1"]);
    expect(score(jsonSchemaScorer, { value: { n: 1, tags: ["a", 5] }, expected: schema }).reason).toMatch(/^invalid: at tags\.1: .*string/i);
    expect(score(jsonSchemaScorer, { value: 5, expected: schema }).reason).toMatch(/^invalid: at \(root\): .*object/i);
    const seven = score(jsonSchemaScorer, { value: { tags: [1, 2, 3, 4, 5, 6, 7] }, expected: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } } });
    expect(seven.reason).toMatch(/^7 violations: at tags\.0: [^;]+; at tags\.1: [^;]+; at tags\.2: [^;]+; at tags\.3: [^;]+; at tags\.4: [^;]+; and 2 more$/);
  });

  it("says what did not match when a validator fails without naming a violation", () => {
    const silent = { safeParse: () => ({ success: false, error: { issues: [] } }) };
    const result = score(jsonSchemaScorer, { value: { n: 1 }, expected: silent });
    expect(result).toMatchObject({ value: 0, pass: false, details: { issues: [] } });
    expect(result.reason).toBe('invalid: the value {"n":1} does not match the schema (the validator named no violation)');
    expect(score(jsonSchemaScorer, { value: '{"n": 2}', expected: silent }).reason).toBe('invalid: the JSON in the text, {"n":2}, does not match the schema (the validator named no violation)');
  });

  it("parses text as JSON first: plain, or fenced with or without a json tag", () => {
    expect(score(jsonSchemaScorer, { value: '{"n": 3}', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: 'Here it is:\n```json\n{"n": 3}\n```\nDone.', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: '```\n{"n": 3}\n```', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: '```{"n": 3}```', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: '```json{"n": 3}```', expected: schema }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: '\u00a0{"n": 3}\u00a0\n', expected: schema }).pass).toBe(true);
  });

  it("fails text that is not JSON, with the parser's reason and the text", () => {
    const result = score(jsonSchemaScorer, { value: "not json", expected: schema });
    expect(result).toMatchObject({ value: 0, pass: false });
    expect(result.reason).toMatch(/^the text is not JSON \(.*(Unexpected|not valid JSON).*\): "not json"$/);
  });

  it("validates text as text with parse: false", () => {
    expect(score(jsonSchemaScorer, { value: "hello", expected: { type: "string" }, options: { parse: false } }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: '{"n": 3}', expected: schema, options: { parse: false } }).pass).toBe(false);
  });

  it("uses a zod schema as it is, from whatever copy of zod", () => {
    expect(score(jsonSchemaScorer, { value: { n: "x" }, expected: z.object({ n: z.string() }) }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: { n: 1 }, expected: z.object({ n: z.string() }) }).pass).toBe(false);
  });

  it("gives the same verdict when one JSON Schema is used again", () => {
    const shared = { type: "integer" };
    expect(score(jsonSchemaScorer, { value: 1, expected: shared }).pass).toBe(true);
    expect(score(jsonSchemaScorer, { value: "x", expected: shared, options: { parse: false } }).pass).toBe(false);
  });

  it("refuses an expected value that is no schema", () => {
    for (const expected of [null, "integer", 5, undefined]) {
      expect(() => score(jsonSchemaScorer, { value: 1, expected })).toThrow(new TypeError("json-schema needs a JSON Schema object or a zod schema as expected"));
    }
  });
});

describe("readNumber", () => {
  it("takes a number as it is and a numeric text directly", () => {
    expect(readNumber(7.5, "only")).toBe(7.5);
    expect(readNumber(" 42 ", "only")).toBe(42);
    expect(readNumber("-3e2", "only")).toBe(-300);
    expect(readNumber(".5", "only")).toBe(0.5);
    expect(readNumber("0x1F", "only")).toBe(31);
  });

  it("finds the numbers in a text and picks the first, the last, or the only one", () => {
    expect(readNumber("from 3 to 7", "first")).toBe(3);
    expect(readNumber("from 3 to 7", "last")).toBe(7);
    expect(readNumber("about 7 things", "only")).toBe(7);
    expect(readNumber("from 3 to 7", "only")).toBe('2 numbers in "from 3 to 7"; expected one');
  });

  it.each([
    ["a thousands separator", "costs 12,345 EUR", 12345],
    ["several thousands separators", "costs 1,234,567 EUR", 1234567],
    ["a decimal part", "pi is 3.14 roughly", 3.14],
    ["a negative number", "it fell by -12.5 points", -12.5],
    ["an exponent", "about 1e3 units", 1000],
    ["a long exponent", "about 1e10 units", 1e10],
    ["a signed exponent", "about 2.5e-3 units", 0.0025],
    ["a plus-signed exponent", "about 2E+2 units", 200],
  ])("reads %s", (_name, text, expected) => {
    expect(readNumber(text, "last")).toBe(expected);
  });

  it("says when there is no number, or no text", () => {
    expect(readNumber("no digits here", "last")).toBe('no number in "no digits here"');
    expect(readNumber("   ", "last")).toBe('no number in ""');
    expect(readNumber({ n: 1 }, "last")).toBe('not a number: {"n":1}');
    expect(readNumber(undefined, "last")).toBe("not a number: undefined");
  });
});

describe("numeric", () => {
  it("passes an exact match with no tolerance, at value 1", () => {
    expect(score(numericScorer, { value: 4, expected: 4 })).toEqual({ value: 1, pass: true, reason: "4 is within 0 of 4", details: { actual: 4, expected: 4, difference: 0 } });
  });

  it("passes within the absolute or the relative tolerance, whichever allows more", () => {
    expect(score(numericScorer, { value: 4.5, expected: 4, options: { tolerance: 0.5 } })).toMatchObject({ pass: true, reason: "4.5 is within 0.5 of 4" });
    expect(score(numericScorer, { value: 4.6, expected: 4, options: { tolerance: 0.5 } }).pass).toBe(false);
    expect(score(numericScorer, { value: "about 99", expected: 100, options: { relative: 0.01 } })).toMatchObject({ pass: true, reason: "99 is within 1 of 100" });
    expect(score(numericScorer, { value: 98, expected: 100, options: { relative: 0.01, tolerance: 2 } })).toMatchObject({ pass: true, reason: "98 is within 2 of 100" });
  });

  it("fails outside it, the value falling with the relative distance", () => {
    expect(score(numericScorer, { value: 5, expected: 4 })).toEqual({
      value: 0.75,
      pass: false,
      reason: "5 is 1 away from 4 (allowed: 0)",
      details: { actual: 5, expected: 4, difference: 1 },
    });
    expect(score(numericScorer, { value: 12, expected: 4 }).value).toBe(0);
    expect(score(numericScorer, { value: 1, expected: 0 }).value).toBe(0);
  });

  it("reads the last number of a text unless told otherwise", () => {
    expect(score(numericScorer, { value: "2 + 2 = 4", expected: 4 }).pass).toBe(true);
    expect(score(numericScorer, { value: "4 is not 2 + 3", expected: 4 }).pass).toBe(false);
    expect(score(numericScorer, { value: "4 is not 2 + 3", expected: 4, options: { pick: "first" } }).pass).toBe(true);
    expect(score(numericScorer, { value: "2 or 4", expected: 4, options: { pick: "only" } })).toEqual({ value: 0, pass: false, reason: '2 numbers in "2 or 4"; expected one' });
  });

  it("refuses an expected value that is not a finite number", () => {
    for (const [expected, shown] of [["4", '"4"'], [Number.NaN, "null"], [Number.POSITIVE_INFINITY, "null"]] as const) {
      expect(() => score(numericScorer, { value: 4, expected })).toThrow(new TypeError(`numeric needs a finite number as expected, got ${shown}`));
    }
  });
});

describe("similarity measures", () => {
  it("levenshtein is 1 minus the edit distance over the longer length", () => {
    expect(levenshteinSimilarity("kitten", "sitting")).toBeCloseTo(1 - 3 / 7, 10);
    expect(levenshteinSimilarity("", "abc")).toBe(0);
    expect(levenshteinSimilarity("", "")).toBe(1);
    expect(levenshteinSimilarity("abc", "abd")).toBeCloseTo(2 / 3, 10);
  });

  it("dice is twice the shared character bigrams over all bigrams, counting repeats", () => {
    expect(diceSimilarity("night", "nacht")).toBe(0.25);
    expect(diceSimilarity("abc", "abd")).toBe(0.5);
    expect(diceSimilarity("ab", "abc")).toBeCloseTo(2 / 3, 10);
    expect(diceSimilarity("aaaa", "aa")).toBe(0.5);
    expect(diceSimilarity("aa", "aaaa")).toBe(0.5);
    expect(diceSimilarity("abab", "baba")).toBeCloseTo(4 / 6, 10);
    expect(diceSimilarity("hello world", "world hello")).toBeCloseTo(16 / 20, 10);
  });

  it("dice is 0 when a text is too short to have a bigram, unless both are equal", () => {
    expect(diceSimilarity("a", "b")).toBe(0);
    expect(diceSimilarity("a", "ab")).toBe(0);
    expect(diceSimilarity("ab", "b")).toBe(0);
    expect(diceSimilarity("a", "a")).toBe(1);
    expect(diceSimilarity("", "")).toBe(1);
  });

  it("dice is 0 for texts with no bigram in common, and above 0 when they share one (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 2, maxLength: 12 }), fc.string({ minLength: 2, maxLength: 12 }), (a, b) => {
        fc.pre(a !== b);
        const grams = (text: string) => new Set(Array.from({ length: text.length - 1 }, (_, i) => text.slice(i, i + 2)));
        const shared = [...grams(a)].some((gram) => grams(b).has(gram));
        expect(diceSimilarity(a, b) > 0).toBe(shared);
        expect(diceSimilarity(a, b)).toBeLessThan(1);
      }),
    );
  });

  it("jaccard compares the sets of words, punctuation and repeats aside", () => {
    expect(jaccardSimilarity("hello world", "hello there")).toBeCloseTo(1 / 3, 10);
    expect(jaccardSimilarity("Hello, world!", "Hello world")).toBe(1);
    expect(jaccardSimilarity("a a b", "a b b")).toBe(1);
    expect(jaccardSimilarity("route 66", "route 67")).toBeCloseTo(1 / 3, 10);
    expect(jaccardSimilarity("café crème", "café noir")).toBeCloseTo(1 / 3, 10);
    expect(jaccardSimilarity("", "hello")).toBe(0);
    expect(jaccardSimilarity("hello", "...")).toBe(0);
    expect(jaccardSimilarity("", "")).toBe(1);
    expect(jaccardSimilarity("!!", "?")).toBe(1);
  });
});

describe("similarity", () => {
  it("uses levenshtein by default and passes at 0.8, saying how close the texts are", () => {
    expect(score(similarityScorer, { value: "kitten", expected: "sitting" })).toEqual({
      value: 1 - 3 / 7,
      pass: false,
      reason: 'levenshtein similarity 0.571 < 0.8 between "kitten" and "sitting"',
    });
    expect(score(similarityScorer, { value: "colour", expected: "color" })).toMatchObject({ pass: true, reason: 'levenshtein similarity 0.833 >= 0.8 between "colour" and "color"' });
  });

  it("passes at exactly min", () => {
    expect(score(similarityScorer, { value: "abcd", expected: "abce", options: { min: 0.75 } })).toMatchObject({ value: 0.75, pass: true });
  });

  it("uses the method asked for", () => {
    expect(score(similarityScorer, { value: "night", expected: "nacht", options: { method: "dice", min: 0.2 } })).toMatchObject({
      value: 0.25,
      pass: true,
      reason: 'dice similarity 0.25 >= 0.2 between "night" and "nacht"',
    });
    expect(score(similarityScorer, { value: "hello world", expected: "hello there", options: { method: "jaccard" } })).toMatchObject({
      pass: false,
      reason: 'jaccard similarity 0.333 < 0.8 between "hello world" and "hello there"',
    });
  });

  it("ignores case and surrounding space unless case-sensitive", () => {
    expect(score(similarityScorer, { value: "  HELLO ", expected: "hello", options: { min: 1 } }).pass).toBe(true);
    expect(score(similarityScorer, { value: "HELLO", expected: "hello", options: { min: 1, caseSensitive: true } }).pass).toBe(false);
    expect(score(similarityScorer, { value: " hello ", expected: "hello", options: { min: 1, caseSensitive: true } }).pass).toBe(true);
  });
});
