/** Which regex shapes are refused when a config or a guardrail gives them, and what the refusal says. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unsafeRegexReason } from "../../src/patterns/index.js";

const NESTED =
  "a repeated group that itself repeats or has alternatives (e.g. (a+)+ or (a|b)*) can take exponential time to match; repeat the inner part only (a+), or use a character class ([ab]*)";
const FIXED_NESTED = "a repeated group that itself repeats or has alternatives can take exponential time to match; repeat the inner part only";

describe("unsafeRegexReason", () => {
  it.each([
    "refund",
    "a+b*c?",
    "(ab)+",
    "(?:\\.\\d)*",
    "(a)",
    "(a|b)",
    "(a+)",
    "(a|b)?",
    "(a+)?",
    "(a+){1}",
    "(a+){0,1}",
    "(ab){3}",
    "a{2}b{2,}",
    "[(a+)+]+",
    "[\\](a+)+]*",
    "\\(a+\\)+",
    "\\p{L}+\\P{N}*",
    "\\u{1F600}+",
    "(\\p{L})+",
    "a+?b*?",
    "(?<word>ab)+",
    "(?=a+)b",
    "(?<=a+)b",
    "(?<!a+)b",
    "(?!a|b)c",
    "a{",
    "x{2}y{3,}",
    "\\d<b>",
    "((ab))+",
    "(?:(ab)c)+",
  ])("accepts %s", (source) => {
    expect(unsafeRegexReason(source)).toBeUndefined();
  });

  it.each([
    "(a+)+",
    "(a+)+$",
    "(a|b)*",
    "(a|aa)+$",
    "(?:a|aa)+",
    "(x{2,})+",
    "(x{1,3})*",
    "(\\w+\\s?)*$",
    "(a?)+",
    "((a+))+",
    "((a)|b)+",
    "(?<n>a+)+",
    "(\\p{L}+)+",
    "(\\u{1F600}+)+",
    "([ab]+)+",
    "(a+?)+",
    "(a+){2,}",
    "(a+){1,3}",
    "(a|b)+?",
    "(a+){10,}",
    "(?:|a)+",
    "[abc](a+)+",
    "[ab](a+)+",
    "a{2}(b+)+",
  ])("refuses %s: a repeated group that repeats or has alternatives", (source) => {
    expect(unsafeRegexReason(source)).toBe(NESTED);
  });

  it.each(["(a+){2}", "(a|b){10}", "(?:x*){3}"])("refuses %s: an ambiguous group repeated a fixed number of times", (source) => {
    expect(unsafeRegexReason(source)).toBe(FIXED_NESTED);
  });

  it("refuses back-references, naming them", () => {
    expect(unsafeRegexReason("(a)\\1")).toBe("back-reference \\1 can take exponential time to match; match the text again explicitly instead");
    expect(unsafeRegexReason("(a)(b)\\2")).toBe("back-reference \\2 can take exponential time to match; match the text again explicitly instead");
    expect(unsafeRegexReason("(?<n>a)\\k<n>")).toBe("back-reference \\k<…> can take exponential time to match; match the text again explicitly instead");
    expect(unsafeRegexReason("\\0\\k")).toBeUndefined();
  });

  it("leaves an unbalanced pattern to RegExp, which reports it", () => {
    expect(unsafeRegexReason("a)(b+)+")).toBeUndefined();
  });

  it("reads past what an escape, a class or a group marker spans", () => {
    // The escaped and class characters are atoms: a quantifier after them repeats one atom.
    expect(unsafeRegexReason("(\\|a)+")).toBeUndefined();
    expect(unsafeRegexReason("([|+*])+")).toBeUndefined();
    expect(unsafeRegexReason("(\\p{L}|x)+")).toBe(NESTED);
    expect(unsafeRegexReason("(?:ab)+(?:a|b)")).toBeUndefined();
    expect(unsafeRegexReason("(?<a_b>x)+")).toBeUndefined();
    expect(unsafeRegexReason("(\\x41\\u0042)+")).toBeUndefined();
    expect(unsafeRegexReason("(a{2})+")).toBeUndefined();
    expect(unsafeRegexReason("(a{2}b)*c")).toBeUndefined();
  });

  it.each([
    ["(a+){2}", "(a+){2,2}"],
    ["(a?)+", "(a{0,1})+"],
    ["(a*)+", "(a{0,})+"],
    ["(a+)+", "(a{1,})+"],
    ["(a+){1}", "(a+){1,1}"],
    ["(ab){3}", "(ab){3,3}"],
    ["((ab){2})+", "((ab){2,2})+"],
  ])("gives %s and %s, two spellings of one pattern, the same verdict", (one, other) => {
    expect(unsafeRegexReason(other)).toBe(unsafeRegexReason(one));
  });

  it("gives every spelling of the same quantifiers the same verdict", () => {
    // Each quantifier with the ways JavaScript lets one write it; a pattern is built from a
    // tree whose every quantifier is spelled by a separate choice.
    const spellings: readonly (readonly string[])[] = [["*", "{0,}"], ["+", "{1,}"], ["?", "{0,1}"], ["", "{1}", "{1,1}"], ["{2}", "{2,2}"], ["{0}", "{0,0}"], ["{2,}"], ["{1,3}"]];
    type Node = { kind: "atom"; text: string } | { kind: "group"; capture: boolean; alternatives: Node[][] };
    const tree = fc.letrec<{ node: Node; seq: Node[] }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom("a", "[ab]", "\\d", "\\(").map((text): Node => ({ kind: "atom", text })),
        fc.record({ capture: fc.boolean(), alternatives: fc.array(tie("seq"), { minLength: 1, maxLength: 2 }) }).map((group): Node => ({ kind: "group", ...group })),
      ),
      seq: fc.array(tie("node"), { minLength: 1, maxLength: 3 }),
    })).seq;
    const quantified = fc.array(fc.tuple(fc.nat({ max: spellings.length - 1 }), fc.nat(), fc.nat()), { minLength: 40, maxLength: 40 });
    const render = (seq: Node[], picks: [number, number, number][], choose: 1 | 2): string => {
      let next = 0;
      const walk = (nodes: Node[]): string =>
        nodes
          .map((node) => {
            const [which, a, b] = picks[next++ % picks.length] as [number, number, number];
            const forms = spellings[which] as readonly string[];
            const body = node.kind === "atom" ? node.text : `(${node.capture ? "" : "?:"}${node.alternatives.map(walk).join("|")})`;
            return body + (forms[(choose === 1 ? a : b) % forms.length] as string);
          })
          .join("");
      return walk(seq);
    };
    fc.assert(
      fc.property(tree, quantified, (seq, picks) => {
        const one = render(seq, picks, 1);
        const other = render(seq, picks, 2);
        expect(unsafeRegexReason(other), `${one} vs ${other}`).toBe(unsafeRegexReason(one));
      }),
      { numRuns: 500 },
    );
  });
});
