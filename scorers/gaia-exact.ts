/**
 * `gaia-exact`: GAIA's official answer check (quasi-exact match with Python's semantics). The
 * value is the model's reply; by default the answer is the text after its last "FINAL ANSWER:",
 * as the benchmark's prompt asks, and a reply without one scores as Python's None would.
 */
import { z } from "zod";
import { extractFinalAnswer, scoreGaia } from "../src/benchmarks/gaia/index.js";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe } from "./support.js";

export interface GaiaExactOptions {
  /** Take the answer after "FINAL ANSWER:" (default true); false scores the whole value. */
  extract?: boolean;
}

export const gaiaExactScorer = registerBuiltin(
  defineScorer<GaiaExactOptions>({
    name: "gaia-exact",
    options: { extract: z.boolean() },
    description: "GAIA's official scorer: the answer after FINAL ANSWER: matches the ground truth as a number, a list or a normalised string.",
    score({ value, expected, options }) {
      if (typeof expected !== "string") throw new TypeError(`gaia-exact needs the ground truth as a string, got ${describe(expected)}`);
      if (typeof value !== "string") return failed(`not text: ${describe(value)}`);
      const answer = options.extract === false ? value : extractFinalAnswer(value);
      const verdict = scoreGaia(answer, expected);
      const shown = answer === null ? 'no "FINAL ANSWER:" in the reply (scored as None)' : describe(answer);
      const details = { answer, expected, branch: verdict.branch };
      return verdict.correct
        ? passed(`${shown} matches ${describe(expected)} (compared as a ${verdict.branch})`, details)
        : failed(`${shown} does not match ${describe(expected)} (compared as a ${verdict.branch})`, details);
    },
  }),
);
