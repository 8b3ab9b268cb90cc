/**
 * `numeric`: a number within a tolerance of the expected one. Text is read as a number; when it
 * holds several (e.g. "2 + 2 = 4"), `pick` chooses which (default: the last).
 */
import { z } from "zod";
import { defineScorer, failed, scored } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe } from "./support.js";

export interface NumericOptions {
  /** Largest absolute difference that passes. Default 0. */
  tolerance?: number;
  /** Largest difference relative to |expected| that passes (e.g. 0.01 for 1%). */
  relative?: number;
  pick?: "first" | "last" | "only";
}

const NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

export function readNumber(value: unknown, pick: NonNullable<NumericOptions["pick"]>): number | string {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return `not a number: ${describe(value)}`;
  // Stryker disable next-line MethodExpression: equivalent, Number() ignores the same surrounding whitespace trim() removes
  const direct = Number(value.trim());
  if (value.trim() !== "" && Number.isFinite(direct)) return direct;
  const found = [...value.matchAll(NUMBER)].map((match) => Number(match[0].replace(/,/g, "")));
  if (found.length === 0) return `no number in ${describe(value, 100)}`;
  if (pick === "only" && found.length > 1) return `${found.length} numbers in ${describe(value, 100)}; expected one`;
  return (pick === "first" ? found[0] : found[found.length - 1]) as number;
}

export const numericScorer = registerBuiltin(
  defineScorer<NumericOptions>({
    name: "numeric",
    options: { tolerance: z.number().nonnegative(), relative: z.number().nonnegative(), pick: z.enum(["first", "last", "only"]) },
    description: "The number (or the number in the text) is within a tolerance of the expected number.",
    score({ value, expected, options }) {
      // Stryker disable next-line ConditionalExpression: equivalent, Number.isFinite is false for anything but a number, so the type test only narrows the type for TypeScript
      if (typeof expected !== "number" || !Number.isFinite(expected)) throw new TypeError(`numeric needs a finite number as expected, got ${describe(expected)}`);
      // Stryker disable next-line LogicalOperator,StringLiteral: equivalent, readNumber reads any pick but "first" and "only" as the last number
      const actual = readNumber(value, options.pick ?? "last");
      if (typeof actual === "string") return failed(actual);
      const difference = Math.abs(actual - expected);
      const allowed = Math.max(options.tolerance ?? 0, (options.relative ?? 0) * Math.abs(expected));
      const pass = difference <= allowed;
      const value01 = pass ? 1 : Math.max(0, 1 - difference / Math.max(Math.abs(expected), Number.EPSILON));
      return scored(
        value01,
        pass,
        pass ? `${actual} is within ${allowed} of ${expected}` : `${actual} is ${difference} away from ${expected} (allowed: ${allowed})`,
        { actual, expected, difference },
      );
    },
  }),
);
