/**
 * `citations`: every `[n]` in a turn's answer points to a passage that turn retrieved (see
 * `passagesOf`: the augment retrieval as numbered in the request, else the tool retrievals'
 * chunks in order). An answer with no marker fails unless `allowNone`. With `everySentence`,
 * each sentence that states a fact must carry a marker: a sentence states a fact when it has at
 * least four words, or a digit, and is neither a question nor an abstention.
 */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { defineAssertion } from "../src/scoring/index.js";
import { sentences } from "../src/retrieval/chunk.js";
import { registerBuiltin } from "./registry.js";
import { answerOf, citationsIn, hasCitation, lastTurn, passagesOf } from "./retrieval-support.js";
import { isAbstention } from "./abstains.js";
import { clip } from "./support.js";

export interface CitationsOptions {
  /** Also require a marker in every sentence that states a fact. */
  everySentence?: boolean;
  /** Pass an answer that cites nothing (default: fail it). */
  allowNone?: boolean;
  /** Check this turn's answer (default: the last turn's). */
  turn?: number;
}

/** Sentences that state a fact but carry no `[n]`. */
export function uncitedFacts(answer: string): string[] {
  return answer
    .split(/\n+/)
    .flatMap((line) => sentences(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")))
    .filter((sentence) => {
      if (hasCitation(sentence) || sentence.trim().endsWith("?") || isAbstention(sentence)) return false;
      const words = sentence.match(/[\p{L}\p{N}]+/gu) ?? [];
      return words.length >= 4 || /\p{N}/u.test(sentence);
    });
}

export const citationsScorer = registerBuiltin(
  defineScorer<CitationsOptions>({
    name: "citations",
    description: "Every [n] in the answer points to a passage the turn retrieved (optionally: every factual sentence carries one).",
    options: { everySentence: z.boolean(), allowNone: z.boolean(), turn: z.number().int().positive() },
    score({ run, options }) {
      const turn = options.turn ?? lastTurn(run);
      const answer = answerOf(run, turn);
      const passages = passagesOf(run, turn);
      const cited = citationsIn(answer);
      const dangling = [...new Set(cited.filter((n) => n < 1 || n > passages.length))];
      if (dangling.length > 0) {
        return failed(`the answer cites ${dangling.map((n) => `[${n}]`).join(", ")}, but turn ${turn} retrieved ${passages.length} passage(s)`, { cited, passages: passages.length });
      }
      if (cited.length === 0 && !options.allowNone) return failed(`the answer of turn ${turn} cites no passage: ${clip(answer, 100) || "(empty answer)"}`);
      if (options.everySentence) {
        const uncited = uncitedFacts(answer);
        if (uncited.length > 0) return failed(`${uncited.length} sentence(s) state a fact without a citation: ${uncited.slice(0, 3).map((sentence) => JSON.stringify(clip(sentence, 80))).join(", ")}`);
      }
      const ids = [...new Set(cited)].map((n) => `[${n}] ${passages[n - 1]!.id}`);
      return passed(cited.length ? `every citation resolves: ${ids.join(", ")}` : "the answer cites nothing (allowed)");
    },
  }),
);

export const citationsAssertions = {
  /** Every [n] in the answer points to a passage the turn retrieved; `everySentence` also wants one per factual sentence. */
  citationsResolve: defineAssertion({
    scorer: "citations",
    arity: 0,
    options: { everySentence: z.boolean(), allowNone: z.boolean(), turn: z.number().int().positive() },
    call: (_: [], options: { everySentence?: boolean; allowNone?: boolean; turn?: number }) => ({
      label: `citationsResolve(${options.everySentence ? "everySentence" : ""})`,
      options,
    }),
  }),
};
