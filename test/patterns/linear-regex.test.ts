import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear } from "../../src/patterns/index.js";

const atom = fc.constantFrom("a", "b", ".", "[ab]", "[^a]", "\\d", "\\w", "\\s", "x", "\\b", "\\B", "^", "$", "A", "é", "\\u{1F600}");
const quantifier = fc.constantFrom("", "", "*", "+", "?", "{1,2}", "*?", "+?", "{2}", "{0,}", "??");
const quantified = fc.tuple(atom, quantifier).map(([item, q]) => (/^[\^$]$|^\\[bB]$/.test(item) ? item : item + q));
// One level of groups: deeper nesting makes the JavaScript engine itself (the reference) exponential.
const group = fc
  .tuple(fc.array(quantified, { minLength: 1, maxLength: 3 }), fc.array(quantified, { maxLength: 2 }), quantifier, fc.boolean())
  .map(([left, right, q, capture]) => `(${capture ? "" : "?:"}${left.join("")}${right.length ? `|${right.join("")}` : ""})${q}`);
const pattern = fc.array(fc.oneof(quantified, group), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
// No astral characters: V8 tests \B between the halves of a surrogate pair even with the u flag.
const text = fc.array(fc.constantFrom("a", "b", " ", "x", "1", "A", "é", "\n", "ſ", "K"), { maxLength: 10 }).map((parts) => parts.join(""));

describe("linear-time patterns find what a RegExp finds", () => {
  it("the same match or none, at the same place; the same span and replacements for patterns without groups", () => {
    fc.assert(
      fc.property(pattern, text, fc.constantFrom("iu", "u", "su", "imu"), (source, subject, flags) => {
        let regex: RegExp;
        try {
          regex = new RegExp(source, flags);
        } catch {
          return;
        }
        const linear = compileLinear(source, flags);
        expect(linear).toBeDefined();
        const expected = regex.exec(subject);
        const found = linear?.exec(subject);
        expect(found?.index).toBe(expected?.index);
        // An optional repetition that matches empty text is refused by RegExp's empty check and
        // not here, so with groups the end of a match may differ; whether and where it starts cannot.
        if (source.includes("(")) return;
        expect(found?.text).toBe(expected?.[0]);
        expect(linear?.replaceAll(subject, "#").text).toBe(subject.replace(new RegExp(source, `${flags}g`), "#"));
      }),
      { numRuns: 3000 },
    );
  });

  it("reads astral characters as one code point", () => {
    expect(compileLinear(".b", "u")?.exec("x😀b")).toMatchObject({ index: 1, text: "😀b" });
    expect(compileLinear("\\u{1F600}+", "u")?.replaceAll("a😀😀b", "#").text).toBe("a#b");
  });

  it("has no linear form for lookarounds and back-references", () => {
    for (const source of ["(?=a)", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>"]) expect(compileLinear(source, "u")).toBeUndefined();
  });

  it("runs (a+)+$ against a long text", () => {
    expect(compileLinear("(a+)+$", "iu")?.test(`${"a".repeat(300_000)}b`)).toBe(false);
    expect(compileLinear("(\\w+\\s?)+$", "iu")?.exec(`${"ab ".repeat(100_000)}!`)).toBeUndefined();
  });
});
