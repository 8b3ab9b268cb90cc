/** `includes`: text contains each expected substring (or an array contains each expected item). */
import { z } from "zod";
import { defineScorer, scored } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { asText, deepEqual, describe, normaliseText } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface IncludesOptions {
  /** Default true. */
  caseSensitive?: boolean;
  /** "all" (default): every expected item must be present; "any": one is enough. */
  mode?: "all" | "any";
}

/** An expected value that every text (or array) contains checks nothing: refused, not passed. */
export function includesProblem(expected: unknown): string | undefined {
  if (expected === undefined || expected === null) return `includes needs the text (or item) to look for, got ${String(expected)}`;
  if (expected === "") return 'includes("") checks nothing: every text contains the empty string; give the text to look for';
  if (Array.isArray(expected)) {
    if (expected.length === 0) return "includes([]) checks nothing: give at least one text (or item) to look for";
    const index = expected.findIndex((item) => item === "" || item === undefined || item === null);
    if (index >= 0) return `includes: item ${index} is ${JSON.stringify(expected[index]) ?? "undefined"}, which checks nothing`;
  }
  return undefined;
}

export const includesScorer = registerBuiltin(
  defineScorer<IncludesOptions>({
    name: "includes",
    options: { caseSensitive: z.boolean(), mode: z.enum(["all", "any"]) },
    checkExpected: includesProblem,
    description: "The text contains the expected substring(s); an array contains the expected item(s). Value: the share found.",
    score({ value, expected, options }) {
      const problem = includesProblem(expected);
      if (problem) throw new TypeError(problem);
      const wanted = Array.isArray(expected) ? expected : [expected];
      const mode = options.mode ?? "all";
      const found = wanted.filter((item) =>
        Array.isArray(value)
          ? value.some((element) => deepEqual(element, item))
          : normaliseText(asText(value), options).includes(normaliseText(asText(item), options)),
      );
      const missing = wanted.filter((item) => !found.includes(item));
      // Stryker disable next-line ConditionalExpression: equivalent, an empty expected list is refused above, so this fallback is never used
      const share = wanted.length === 0 ? 1 : found.length / wanted.length;
      // Stryker disable next-line ConditionalExpression: equivalent for the empty list, which is refused above
      const pass = mode === "all" ? missing.length === 0 : found.length > 0 || wanted.length === 0;
      const subject = Array.isArray(value) ? "the array" : "the text";
      const reason = pass
        ? `${subject} contains ${found.map((item) => describe(item, 60)).join(", ")}`
        : `${subject} does not contain ${missing.map((item) => describe(item, 60)).join(mode === "all" ? ", " : " or ")}; it was ${describe(value, 160)}`;
      return scored(mode === "all" ? share : pass ? 1 : 0, pass, reason);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const includesAssertions = {
  /** The final output contains the text (every one, for an array). */
  outputContains: defineAssertion({
    scorer: "includes",
    arity: 1,
    options: { caseSensitive: z.boolean() },
    check: ([text]) => includesProblem(text),
    call: ([text]: [text: string | readonly string[]], options: { caseSensitive?: boolean }) => ({
      label: `outputContains(${brief(text)})`,
      options: { ...(options.caseSensitive !== undefined ? { caseSensitive: options.caseSensitive } : {}) },
      expected: text,
    }),
  }),
};
