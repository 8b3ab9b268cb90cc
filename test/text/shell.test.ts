import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { regexLiteral, shellWord } from "../../src/text/index.js";

/** What a POSIX shell makes of `words` pasted after a command: each argument, read back by a real sh. */
function shellReads(words: readonly string[]): string[] {
  const script = `for a in ${words.join(" ")}; do printf '%s\\0' "$a"; done`;
  // `for a in <words>` word-splits only unquoted expansions, and these words expand nothing: each is one argument.
  const out = execFileSync("sh", ["-c", `set -f; ${script}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

describe("shellWord", () => {
  it("gives back, through a real shell, exactly the text it quoted (quotes, backslashes, spaces, $, globs, newlines)", () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom("'", '"', "\\", " ", "$", "*", "?", "`", "!", "\n", "\t", ";", "&", "|", "(", ")", "#", "~", "-"), fc.string({ minLength: 1, maxLength: 1 })), minLength: 1 }).filter((value) => !value.includes("\0"));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (words) => {
        expect(shellReads(words.map(shellWord))).toEqual(words);
      }),
      { numRuns: 40 },
    );
  });

  it("leaves a plain path or name as it is, and quotes one with a quote in it so the shell can read it", () => {
    expect(shellWord("eval/math.eval.ts")).toBe("eval/math.eval.ts");
    expect(shellWord("hello: the calculator's result")).toBe("'hello: the calculator'\\''s result'");
    expect(shellReads([shellWord("hello: the calculator's result")])).toEqual(["hello: the calculator's result"]);
  });

  it("with regexLiteral, makes a -t pattern that matches the case's name whole, quote and metacharacters included", () => {
    const name = "hello: the calculator's result (1+1)? [x] $5 a.b\\c";
    const [pattern] = shellReads([shellWord(regexLiteral(name))]);
    expect(new RegExp(`^${pattern}$`).test(name)).toBe(true);
    // Near misses that only an unescaped metacharacter would match.
    expect(new RegExp(`^${pattern}$`).test("hello: the calculator's result 11 x $5 aXb\\c")).toBe(false);
    expect(new RegExp(shellReads([shellWord(regexLiteral("a.b (1+1)?"))])[0]!).test("aXb 11")).toBe(false);
  });
});
