/**
 * `abstains`: the answer declines to answer ("I don't know", "the documents do not say", ...).
 * With `whenNothingRelevant` it checks the rule both ways: the answer must abstain exactly
 * when the turn retrieved no chunk (or none containing one of `relevant`).
 */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { defineAssertion } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { answerOf, lastTurn, retrievalsOf } from "./retrieval-support.js";
import { clip } from "./support.js";

const ABSTENTION = new RegExp(
  [
    String.raw`\b(?:i|we)\s+(?:do\s+not|don['\u2019]t|cannot|can['\u2019]t|could\s+not|couldn['\u2019]t)\s+(?:know|find|say|tell|answer|see)\b`,
    String.raw`\b(?:not|never)\s+(?:mentioned|covered|stated|specified|found|addressed)\b`,
    String.raw`\b(?:no|not\s+enough)\s+(?:information|passage|document|mention|answer|relevant)\b`,
    String.raw`\b(?:do|does)\s+not\s+(?:say|mention|cover|contain|specify|answer)\b`,
    String.raw`\b(?:doesn['\u2019]t|don['\u2019]t)\s+(?:say|mention|cover|contain|specify|answer)\b`,
    String.raw`\bunable\s+to\s+(?:answer|find|determine)\b`,
    String.raw`\bi(?:\s+am|['\u2019]m)\s+not\s+(?:sure|able)\b`,
  ].join("|"),
  "iu",
);

export function isAbstention(text: string): boolean {
  return ABSTENTION.test(text);
}

export interface AbstainsOptions {
  /** Also require that the turn retrieved nothing relevant (and pass a non-abstaining answer when it did). */
  whenNothingRelevant?: boolean;
  /** Text a relevant chunk would contain; without it any retrieved chunk counts as relevant. */
  relevant?: string[];
  /** Extra phrases that count as declining (matched ignoring case). */
  phrases?: string[];
  turn?: number;
}

export const abstainsScorer = registerBuiltin(
  defineScorer<AbstainsOptions>({
    name: "abstains",
    description: "The answer declines to answer (optionally: exactly when nothing relevant was retrieved).",
    options: { whenNothingRelevant: z.boolean(), relevant: z.array(z.string().min(1)), phrases: z.array(z.string().min(1)), turn: z.number().int().positive() },
    score({ run, options }) {
      const turn = options.turn ?? lastTurn(run);
      const answer = answerOf(run, turn);
      const declines = isAbstention(answer) || (options.phrases ?? []).some((phrase) => answer.toLowerCase().includes(phrase.toLowerCase()));
      const chunks = retrievalsOf(run, turn).flatMap((retrieval) => retrieval.chunks);
      const relevant = options.relevant
        ? chunks.filter((chunk) => options.relevant!.some((text) => chunk.text.toLowerCase().includes(text.toLowerCase())))
        : chunks;
      const found = `turn ${turn} retrieved ${chunks.length} chunk(s), ${relevant.length} relevant`;
      if (options.whenNothingRelevant) {
        if (relevant.length === 0 && !declines) return failed(`nothing relevant was retrieved (${found}) but the answer does not decline: ${clip(answer, 100)}`);
        if (relevant.length > 0 && declines) return failed(`the answer declines although ${found}: ${clip(answer, 100)}`);
        return passed(declines ? `the answer declines and ${found}` : `the answer answers and ${found}`);
      }
      return declines ? passed(`the answer declines (${found})`) : failed(`the answer does not decline (${found}): ${clip(answer, 100) || "(empty answer)"}`);
    },
  }),
);

export const abstainsAssertions = {
  /** The answer declines to answer; `whenNothingRelevant` also checks it declines only when retrieval found nothing relevant. */
  abstained: defineAssertion({
    scorer: "abstains",
    arity: 0,
    options: { whenNothingRelevant: z.boolean(), relevant: z.array(z.string().min(1)), phrases: z.array(z.string().min(1)), turn: z.number().int().positive() },
    call: (_: [], options: { whenNothingRelevant?: boolean; relevant?: string[]; phrases?: string[]; turn?: number }) => ({ label: "abstained()", options }),
  }),
};
