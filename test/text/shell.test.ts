import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { regexLiteral, shellWord } from "../../src/text/index.js";
import { shellReads } from "./shell-reads.js";

describe("shellWord", () => {
  it("gives back, through a real shell, exactly the text it quoted (quotes, backslashes, spaces, $, globs, newlines)", () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom("'", '"', "\\", " ", "$", "*", "?", "`", "!", "\n", "\t", ";", "&", "|", "(", ")", "#", "~", "-"), fc.string({ minLength: 1, maxLength: 1 })), minLength: 1 }).filter((value) => !value.includes("\0"));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (words) => {
        expect(shellReads(words.map(shellWord).join(" "))).toEqual(words);
      }),
      { numRuns: 40 },
    );
  });

  it("leaves a plain path or name as it is, and quotes one with a quote in it so the shell can read it", () => {
    expect(shellWord("eval/math.eval.ts")).toBe("eval/math.eval.ts");
    expect(shellWord("hello: the calculator's result")).toBe("'hello: the calculator'\\''s result'");
    expect(shellReads(shellWord("hello: the calculator's result"))).toEqual(["hello: the calculator's result"]);
  });

  it("with regexLiteral, makes a -t pattern that matches the case's name whole, quote and metacharacters included", () => {
    const name = "hello: the calculator's result (1+1)? [x] $5 a.b\\c";
    const [pattern] = shellReads(shellWord(regexLiteral(name)));
    expect(new RegExp(`^${pattern}$`).test(name)).toBe(true);
    // Near misses that only an unescaped metacharacter would match.
    expect(new RegExp(`^${pattern}$`).test("hello: the calculator's result 11 x $5 aXb\\c")).toBe(false);
    expect(new RegExp(shellReads(shellWord(regexLiteral("a.b (1+1)?")))[0]!).test("aXb 11")).toBe(false);
  });
});
