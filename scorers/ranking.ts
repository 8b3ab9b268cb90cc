/**
 * `ranking`: how well a retrieval ranked the relevant chunks, against judgements given as chunk
 * ids or as text a relevant chunk must contain. Metrics at k (binary relevance; R judgements):
 *
 * - recall    = judgements matched by some chunk in the top k / R
 * - precision = relevant chunks in the top k / k
 * - hit_rate  = 1 if any chunk in the top k is relevant, else 0
 * - mrr       = 1 / rank of the first relevant chunk in the top k (0 if none)
 * - ndcg      = Σ rel_i / log2(i + 1) over the top k, divided by the same for the ideal
 *               ranking (min(R, k) relevant chunks first)
 *
 * Each judgement credits at most one chunk — its best-ranked match — so a text that many
 * chunks contain counts once and no metric exceeds 1. The retrieval read is the last one of
 * the run (or of `turn`), whichever mode made it.
 */
import { z } from "zod";
import { defineScorer, scored, failed } from "../src/scoring/index.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";
import { registerBuiltin } from "./registry.js";
import { describeJudgement, judgementOf, matchesJudgement, retrievalsOf, type Judgement } from "./retrieval-support.js";
import type { RetrievedChunk } from "../src/contracts/index.js";

export const RANKING_METRICS = ["recall", "precision", "hit_rate", "mrr", "ndcg"] as const;
export type RankingMetric = (typeof RANKING_METRICS)[number];

export interface RankingOptions {
  metric: RankingMetric;
  gold: Judgement[];
  /** Default 10. */
  k?: number;
  /** The value needed to pass. Default 1. */
  min?: number;
  /** Read this turn's last retrieval instead of the run's. */
  turn?: number;
}

const JudgementSchema = z.union([z.string().min(1), z.strictObject({ id: z.string().min(1) }), z.strictObject({ text: z.string().min(1) })]);

/** The metric's value for a ranked list, and which ranks (from 1) were credited as relevant. */
export function rankingMetric(metric: RankingMetric, chunks: readonly Pick<RetrievedChunk, "id" | "text">[], gold: readonly Judgement[], k: number): { value: number; relevantRanks: number[] } {
  const judgements = gold.map(judgementOf);
  const top = chunks.slice(0, k);
  const credited = new Set<number>();
  const relevant = new Set<number>();
  for (const [index, judgement] of judgements.entries()) {
    const rank = top.findIndex((chunk, position) => !relevant.has(position) && matchesJudgement(chunk, judgement));
    if (rank >= 0) {
      credited.add(index);
      relevant.add(rank);
    }
  }
  const relevantRanks = [...relevant].map((position) => position + 1).sort((a, b) => a - b);
  const total = judgements.length;
  switch (metric) {
    case "recall":
      return { value: total === 0 ? 0 : credited.size / total, relevantRanks };
    case "precision":
      return { value: relevant.size / k, relevantRanks };
    case "hit_rate":
      return { value: relevant.size > 0 ? 1 : 0, relevantRanks };
    case "mrr":
      return { value: relevantRanks.length > 0 ? 1 / relevantRanks[0]! : 0, relevantRanks };
    case "ndcg": {
      const dcg = relevantRanks.reduce((sum, rank) => sum + 1 / Math.log2(rank + 1), 0);
      let ideal = 0;
      for (let rank = 1; rank <= Math.min(total, k); rank++) ideal += 1 / Math.log2(rank + 1);
      return { value: ideal === 0 ? 0 : dcg / ideal, relevantRanks };
    }
  }
}

export const rankingScorer = registerBuiltin(
  defineScorer<RankingOptions>({
    name: "ranking",
    description: "A retrieval's recall, precision, hit rate, MRR or nDCG at k against relevance judgements (chunk ids or text) reached a minimum.",
    options: {
      metric: z.enum(RANKING_METRICS),
      gold: z.array(JudgementSchema).min(1),
      k: z.number().int().positive(),
      min: z.number().min(0).max(1),
      turn: z.number().int().positive(),
    },
    score({ run, options }) {
      const k = options.k ?? 10;
      const min = options.min ?? 1;
      const retrieval = retrievalsOf(run, options.turn).at(-1);
      const where = options.turn !== undefined ? ` in turn ${options.turn}` : "";
      if (!retrieval) return failed(`no retrieval${where} to rank: the run made none`);
      const { value, relevantRanks } = rankingMetric(options.metric, retrieval.chunks, options.gold, k);
      const rounded = Math.round(value * 1e6) / 1e6;
      const found = relevantRanks.length ? `relevant at rank ${relevantRanks.join(", ")}` : "no relevant chunk";
      const missing = options.gold
        .map(judgementOf)
        .filter((judgement) => !retrieval.chunks.slice(0, k).some((chunk) => matchesJudgement(chunk, judgement)))
        .map(describeJudgement);
      const reason = `${options.metric}@${k} = ${rounded} (min ${min}) for ${brief(retrieval.query)}${where}: ${found}${missing.length ? `; not in the top ${k}: ${missing.slice(0, 4).join(", ")}` : ""}`;
      return scored(value, value >= min, reason, { metric: options.metric, k, value: rounded, relevantRanks });
    },
  }),
);

export const rankingAssertions = {
  /** The last retrieval (of the run, or of `turn`) reached `min` (default 1) on the metric at k (default 10). */
  rankingMetric: defineAssertion({
    scorer: "ranking",
    arity: 2,
    options: { k: z.number().int().positive(), min: z.number().min(0).max(1), turn: z.number().int().positive() },
    call: ([metric, gold]: [metric: RankingMetric, gold: Judgement[]], options: { k?: number; min?: number; turn?: number }) => ({
      label: `rankingMetric(${metric}@${options.k ?? 10} >= ${options.min ?? 1})`,
      options: { metric, gold, ...options },
    }),
  }),
};
