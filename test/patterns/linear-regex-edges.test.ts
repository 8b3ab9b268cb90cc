/**
 * The linear-time matcher on the parts of the syntax the main property does not draw: escapes
 * of every form, named groups, counted repetition, line breaks under the m flag, NUL, U+FFFF,
 * astral characters and empty matches, and the limits (program size, lookbehind).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear } from "../../src/patterns/index.js";

const atom = fc.constantFrom(
  "a",
  ".",
  "\\x41",
  "\\cJ",
  "\\u0041",
  "\\u{41}",
  "\\uD83D\\uDE00",
  "\\u{1F600}",
  "\\p{L}",
  "\\P{L}",
  "\\p{Lu}",
  "[\\]a]",
  "[^\\n]",
  "[a\\-z]",
  "\\n",
  "\\r",
  "\\0",
  "\\uFFFF",
  "^",
  "$",
  "(?<name>a|\\p{N})",
  "(?:b|)",
);
const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{2,3}", "{10}", "{1,}", "{0}", "{0,2}?", "+?");
const quantified = fc.tuple(atom, quantifier).map(([item, q]) => (item === "^" || item === "$" ? item : item + q));
const pattern = fc.array(quantified, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
const text = fc
  .array(fc.constantFrom("a", "A", "b", "1", "\n", "\r", "\u2028", "\u2029", "\0", "\uffff", "\u0080", "😀", "]", "-", "z", "\n\n"), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("compileLinear finds what a RegExp finds", () => {
  it("for escapes, classes, named groups, counted repetition and line breaks", () => {
    fc.assert(
      fc.property(pattern, text, fc.constantFrom("u", "iu", "mu", "imu", "su"), (source, subject, flags) => {
        let regex: RegExp;
        try {
          regex = new RegExp(source, flags);
        } catch {
          return;
        }
        const linear = compileLinear(source, flags);
        expect(linear, source).toBeDefined();
        const expected = regex.exec(subject);
        const found = linear?.exec(subject);
        expect(found?.index, `${source} on ${JSON.stringify(subject)}`).toBe(expected?.index);
        if (source.includes("(")) return;
        expect(found?.text).toBe(expected?.[0]);
        const all = [...subject.matchAll(new RegExp(source, `${flags}g`))];
        expect(linear?.replaceAll(subject, "#")).toEqual({ text: subject.replace(new RegExp(source, `${flags}g`), "#"), count: all.length });
      }),
      { numRuns: 2000 },
    );
  });

  it("starts and ends lines at every line break under the m flag", () => {
    for (const brk of ["\n", "\r", "\u2028", "\u2029"]) {
      expect(compileLinear("^b", "mu")?.exec(`a${brk}b`)).toMatchObject({ index: 2, text: "b" });
      expect(compileLinear("a$", "mu")?.exec(`a${brk}b`)).toMatchObject({ index: 0, text: "a" });
      expect(compileLinear("^b", "u")?.exec(`a${brk}b`)).toBeUndefined();
    }
  });

  it("matches NUL and U+FFFF as the characters they are", () => {
    expect(compileLinear(".", "u")?.exec("\0")).toMatchObject({ index: 0, text: "\0" });
    expect(compileLinear("b", "u")?.exec("\uffffb")).toMatchObject({ index: 1, text: "b" });
    expect(compileLinear("\\uFFFF.", "u")?.exec("\uffffb")).toMatchObject({ index: 0, text: "\uffffb" });
  });

  it("steps over an astral character after an empty match, as a global RegExp does", () => {
    expect(compileLinear("x*", "u")?.replaceAll("😀a", "#")).toEqual({ text: "#😀#a#", count: 3 });
    expect(compileLinear("x*", "u")?.replaceAll("", "#")).toEqual({ text: "#", count: 1 });
    expect(compileLinear("z", "u")?.replaceAll("abc", "#")).toEqual({ text: "abc", count: 0 });
  });

  it("matches the empty pattern everywhere", () => {
    expect(compileLinear("", "u")?.exec("abc")).toEqual({ index: 0, end: 0, text: "" });
    expect(compileLinear("", "u")?.exec("abc", 2)).toEqual({ index: 2, end: 2, text: "" });
    expect(compileLinear("(?:)", "u")?.test("")).toBe(true);
  });

  it("starts a search where it is told", () => {
    expect(compileLinear("a", "u")?.exec("aXa", 1)).toEqual({ index: 2, end: 3, text: "a" });
    expect(compileLinear("a", "u")?.exec("aXa", 3)).toBeUndefined();
  });

  it("has no linear form for a lookbehind, a lookahead or a pattern too large to compile", () => {
    for (const source of ["(?<=a)b", "(?<!a)b", "(?=a)", "(?!a)b"]) expect(compileLinear(source, "u"), source).toBeUndefined();
    expect(compileLinear("a{19999}", "u")).toBeDefined();
    expect(compileLinear("a{20000}", "u")).toBeUndefined();
    expect(compileLinear("x{1000}{1000}", "u")).toBeUndefined();
  });

  it("lets a pattern RegExp itself refuses fail as RegExp fails", () => {
    expect(() => compileLinear("\\p{NotAProperty}", "u")).toThrow(SyntaxError);
  });

  it("keeps the source it was given", () => {
    expect(compileLinear("a+b", "iu")?.source).toBe("a+b");
  });
});
