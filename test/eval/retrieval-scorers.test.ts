import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { abstainsScorer, citationsIn, citationsScorer, isAbstention, rankingMetric, rankingScorer, retrievedChunkScorer, uncitedFacts } from "../../scorers/index.js";
import type { EventPayload, RunEvent, Scorer } from "../../src/contracts/index.js";
import { answer, buildLog, chunk, done, retrieval, scoreLog, user } from "./log.js";

type AnyResult = { value?: number; pass?: boolean; reason: string };

const score = <O>(scorer: Scorer<O>, events: RunEvent[], options: O): AnyResult => scoreLog(scorer, events, options) as AnyResult;

// Ranks 1..5; relevant: "alpha" (rank 2) and "gamma" (rank 4); "omega" is never retrieved.
const ranked = [chunk(1, "zero"), chunk(2, "alpha"), chunk(3, "beta"), chunk(4, "gamma"), chunk(5, "alpha again")];
const gold = ["alpha", "gamma", "omega"];
const augmented = (turnAnswer: string, chunks = ranked): EventPayload[] => [
  user("q"),
  { type: "retrieval", mode: "augment", turn: 1, query: "q", chunks: chunks.map((c, index) => ({ ...c, score: 1, rank: index + 1 })) },
  answer(turnAnswer),
  done(turnAnswer),
];

describe("ranking metrics, by hand", () => {
  it("recall, precision, hit rate, MRR and nDCG at k; each judgement credits its best-ranked match once", () => {
    expect(rankingMetric("recall", ranked, gold, 5).value).toBe(2 / 3);
    expect(rankingMetric("recall", ranked, gold, 3).value).toBe(1 / 3);
    expect(rankingMetric("precision", ranked, gold, 5).value).toBe(2 / 5);
    expect(rankingMetric("precision", ranked, gold, 2).value).toBe(1 / 2);
    expect(rankingMetric("hit_rate", ranked, gold, 1).value).toBe(0);
    expect(rankingMetric("hit_rate", ranked, gold, 2).value).toBe(1);
    expect(rankingMetric("mrr", ranked, gold, 5).value).toBe(1 / 2);
    expect(rankingMetric("mrr", ranked, gold, 1).value).toBe(0);
    // DCG = 1/log2(3) + 1/log2(5); ideal (3 judgements, k 5) = 1 + 1/log2(3) + 1/log2(4).
    expect(rankingMetric("ndcg", ranked, gold, 5).value).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3) + 0.5), 12);
    // "alpha again" at rank 5 is not credited a second time.
    expect(rankingMetric("ndcg", ranked, gold, 5).relevantRanks).toEqual([2, 4]);
  });

  it("judgements may be chunk ids, with or without the content hash", () => {
    expect(rankingMetric("mrr", ranked, ["d.md#4"], 5).value).toBe(1 / 4);
    expect(rankingMetric("mrr", ranked, ["d.md#4:00000004"], 5).value).toBe(1 / 4);
    expect(rankingMetric("mrr", ranked, [{ id: "d.md#9" }], 5).value).toBe(0);
    expect(rankingMetric("recall", ranked, [{ text: "d.md#4" }], 5).value).toBe(0);
  });

  it("property: every metric is within [0, 1], and a perfect ranking scores 1", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 8 }), fc.uniqueArray(fc.constantFrom("a", "b", "c", "x"), { minLength: 1 }), fc.integer({ min: 1, max: 8 }), (texts, judged, k) => {
        const chunks = texts.map((text, index) => ({ id: `f#${index + 1}`, text }));
        for (const metric of ["recall", "precision", "hit_rate", "mrr", "ndcg"] as const) {
          const { value } = rankingMetric(metric, chunks, judged, k);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1 + 1e-12);
        }
        const perfect = judged.map((text, index) => ({ id: `p#${index + 1}`, text }));
        expect(rankingMetric("ndcg", perfect, judged, judged.length).value).toBeCloseTo(1, 12);
        expect(rankingMetric("recall", perfect, judged, judged.length).value).toBe(1);
      }),
    );
  });

  it("the scorer reads the run's (or the turn's) last retrieval and passes at min", () => {
    const events = buildLog(augmented("x"));
    expect(score(rankingScorer, events, { metric: "mrr", gold, k: 5, min: 0.5 })).toMatchObject({ value: 0.5, pass: true });
    const failing = score(rankingScorer, events, { metric: "recall", gold, k: 5 });
    expect(failing).toMatchObject({ pass: false });
    expect(failing.reason).toBe('recall@5 = 0.666667 (min 1) for "q": relevant at rank 2, 4; not in the top 5: "omega"');
    expect(score(rankingScorer, events, { metric: "mrr", gold, turn: 2 }).reason).toBe("no retrieval in turn 2 to rank: the run made none");
  });
});

describe("citations", () => {
  it("reads [n], [n][m] and [n, m]", () => {
    expect(citationsIn("a [1]. b [2][3], c [4, 5] and [x] or [ 6]")).toEqual([1, 2, 3, 4, 5]);
  });

  it("every marker must point to a passage of the turn; no marker at all fails unless allowed", () => {
    const three = ranked.slice(0, 3);
    expect(score(citationsScorer, buildLog(augmented("Alpha it is [2].", three)), {})).toMatchObject({ pass: true, reason: "every citation resolves: [2] d.md#2:00000002" });
    expect(score(citationsScorer, buildLog(augmented("See [4].", three)), {})).toMatchObject({ pass: false, reason: "the answer cites [4], but turn 1 retrieved 3 passage(s)" });
    expect(score(citationsScorer, buildLog(augmented("No markers here.", three)), {}).pass).toBe(false);
    expect(score(citationsScorer, buildLog(augmented("No markers here.", three)), { allowNone: true }).pass).toBe(true);
  });

  it("in tool mode the passages are the turn's retrieved chunks in order, each once", () => {
    const events = buildLog([user("q"), retrieval("c1", "q", [chunk(1, "a"), chunk(2, "b")]), retrieval("c2", "q", [chunk(2, "b"), chunk(3, "c")]), answer("c [3]"), done("c [3]")]);
    expect(score(citationsScorer, events, {})).toMatchObject({ pass: true, reason: "every citation resolves: [3] d.md#3:00000003" });
  });

  it("everySentence: a sentence stating a fact needs a marker; questions and abstentions do not", () => {
    expect(uncitedFacts("Leave is 25 days [1]. Sick leave is 10 days. Anything else? I don't know about bonuses.")).toEqual(["Sick leave is 10 days."]);
    expect(score(citationsScorer, buildLog(augmented("Alpha [1]. Beta is also there.")), { everySentence: true })).toMatchObject({ pass: false });
    expect(score(citationsScorer, buildLog(augmented("Alpha [1]. Beta too [2].")), { everySentence: true })).toMatchObject({ pass: true });
  });
});

describe("abstains", () => {
  it("recognises declining answers", () => {
    for (const text of ["I don't know.", "The policies do not mention stock options.", "I couldn't find that.", "There is no information about it.", "I'm not sure."]) expect(isAbstention(text), text).toBe(true);
    for (const text of ["Permanent employees get 25 days.", "You know the drill: 25 days."]) expect(isAbstention(text), text).toBe(false);
  });

  it("whenNothingRelevant: declines exactly when the turn retrieved nothing relevant", () => {
    const empty = buildLog(augmented("I don't know.", []));
    expect(score(abstainsScorer, empty, { whenNothingRelevant: true }).pass).toBe(true);
    expect(score(abstainsScorer, buildLog(augmented("25 days.", [])), { whenNothingRelevant: true }).pass).toBe(false);
    expect(score(abstainsScorer, buildLog(augmented("I don't know.")), { whenNothingRelevant: true })).toMatchObject({ pass: false });
    expect(score(abstainsScorer, buildLog(augmented("I don't know.")), { whenNothingRelevant: true, relevant: ["omega"] }).pass).toBe(true);
    expect(score(abstainsScorer, buildLog(augmented("Nope, no clue.")), { phrases: ["no clue"] }).pass).toBe(true);
  });
});

describe("retrievedChunk", () => {
  it("is scoped to a turn when asked, and matches an id without its hash", () => {
    const events = buildLog([...augmented("a"), user("q2"), retrieval("c9", "q2", [chunk(7, "seven")]), answer("b"), done("b")]);
    expect(score(retrievedChunkScorer, events, { text: "seven" }).pass).toBe(true);
    expect(score(retrievedChunkScorer, events, { text: "seven", turn: 1 }).pass).toBe(false);
    expect(score(retrievedChunkScorer, events, { text: "seven", turn: 2 }).pass).toBe(true);
    expect(score(retrievedChunkScorer, events, { id: "d.md#2", turn: 1 }).pass).toBe(true);
    expect(score(retrievedChunkScorer, events, { text: "x", turn: 3 }).reason).toBe('no chunk containing "x" in turn 3 was retrieved: the run made no retrieval in turn 3');
  });
});
