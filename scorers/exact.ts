/** `exact`: the value equals the expected value (deep equality for data; options for text). */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { deepEqual, describe, describeDifferences, differences, normaliseText, textDifference } from "./support.js";

export interface ExactOptions {
  /** Text only: compare case-insensitively when false. Default true. */
  caseSensitive?: boolean;
  /** Text only: ignore leading/trailing space and collapse runs of whitespace. Default false. */
  trim?: boolean;
}

export const exactScorer = registerBuiltin(
  defineScorer<ExactOptions>({
    name: "exact",
    options: { caseSensitive: z.boolean(), trim: z.boolean() },
    description: "The value equals the expected value (deep equality; text may ignore case and surrounding space).",
    score({ value, expected, options }) {
      const equal =
        typeof value === "string" && typeof expected === "string"
          ? normaliseText(value, options) === normaliseText(expected, options)
          : deepEqual(value, expected);
      if (equal) return passed(`equals ${describe(expected)}`);
      // Where they differ comes first: both sides clipped to a line rarely show it.
      if (typeof value === "string" && typeof expected === "string") {
        const [want, got] = [normaliseText(expected, options), normaliseText(value, options)];
        return failed(`${textDifference(want, got)} (expected ${describe(expected)}, got ${describe(value)})`, { expected, actual: value });
      }
      const found = differences(expected, value);
      // Stryker disable next-line ConditionalExpression,OptionalChaining: equivalent, a difference at the root is always the only one, and the first difference exists when the count is not 0
      const where = found.length && !(found.length === 1 && found[0]?.path === "(root)") ? `${describeDifferences(found)} (expected ${describe(expected)}, got ${describe(value)})` : `expected ${describe(expected)}, got ${describe(value)}`;
      return failed(where, { expected, actual: value, differences: found });
    },
  }),
);
