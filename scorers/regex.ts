/** `regex`: the text matches a regular expression. */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { asText, describe, toRegExp } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";

export interface RegexOptions {
  /** Flags that replace the pattern's own (e.g. "i"). */
  flags?: string;
}

export const regexScorer = registerBuiltin(
  defineScorer<RegexOptions>({
    name: "regex",
    options: { flags: z.string() },
    description: "The text matches the expected regular expression (a RegExp or a pattern string).",
    score({ value, expected, options }) {
      const pattern = toRegExp(expected, options.flags);
      const text = asText(value);
      const match = pattern.exec(text);
      return match
        ? passed(`matches ${String(pattern)} at ${describe(match[0], 60)}`, { match: match[0], index: match.index })
        : failed(`${describe(text, 160)} does not match ${String(pattern)}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const regexAssertions = {
  outputMatches: defineAssertion({
    scorer: "regex",
    arity: 1,
    options: {},
    call: ([pattern]: [pattern: RegExp], _options: object) => ({ label: `outputMatches(${String(pattern)})`, options: {}, expected: pattern }),
  }),
};
