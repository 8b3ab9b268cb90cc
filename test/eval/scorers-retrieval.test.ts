/**
 * The retrieval scorers' verdicts in full: the reason a report shows is what a user reads to
 * learn why a case failed, so each is checked as written, with the details it carries.
 */
import { describe, expect, it } from "vitest";
import { abstainsScorer, citationsIn, citationsScorer, rankingMetric, rankingScorer, retrievedChunkScorer, uncitedFacts } from "../../scorers/index.js";
import { answerOf, describeJudgement, judgementOf, passagesOf } from "../../scorers/retrieval-support.js";
import type { EventPayload, RunEvent } from "../../src/contracts/index.js";
import { viewRun } from "../../src/journal/index.js";
import { answer, buildLog, chunk, done, retrieval, scoreLog, user } from "./log.js";

const score = scoreLog;

const ranked = [chunk(1, "zero"), chunk(2, "alpha"), chunk(3, "beta"), chunk(4, "gamma"), chunk(5, "alpha again")];
const augment = (turn: number, chunks: ReturnType<typeof chunk>[]): EventPayload => ({
  type: "retrieval",
  mode: "augment",
  turn,
  query: "q",
  chunks: chunks.map((c, index) => ({ ...c, score: 1, rank: index + 1 })),
});
/** One turn: a question, its augment retrieval and the answer. */
const turnOf = (text: string, chunks = ranked, turn = 1): EventPayload[] => [user("q"), augment(turn, chunks), answer(text)];
const oneTurn = (text: string, chunks = ranked): RunEvent[] => buildLog([...turnOf(text, chunks), done(text)]);

describe("abstains", () => {
  it("alone: passes a declining answer, and says what the turn retrieved", () => {
    expect(score(abstainsScorer, oneTurn("I don't know."), {})).toStrictEqual({ value: 1, pass: true, reason: "the answer declines (turn 1 retrieved 5 chunk(s), 5 relevant)" });
    expect(score(abstainsScorer, oneTurn("25 days."), {})).toStrictEqual({ value: 0, pass: false, reason: "the answer does not decline (turn 1 retrieved 5 chunk(s), 5 relevant): 25 days." });
    expect(score(abstainsScorer, oneTurn(""), {})).toMatchObject({ pass: false, reason: "the answer does not decline (turn 1 retrieved 5 chunk(s), 5 relevant): (empty answer)" });
    expect(score(abstainsScorer, oneTurn("Nope, NO CLUE at all."), { phrases: ["no clue"] })).toMatchObject({ pass: true });
  });

  it("whenNothingRelevant: relevant chunks are those holding one of the texts, in any case", () => {
    const relevant = { whenNothingRelevant: true, relevant: ["ALPHA", "omega"] };
    expect(score(abstainsScorer, oneTurn("25 days."), relevant)).toStrictEqual({ value: 1, pass: true, reason: "the answer answers and turn 1 retrieved 5 chunk(s), 2 relevant" });
    expect(score(abstainsScorer, oneTurn("I don't know."), relevant)).toStrictEqual({
      value: 0,
      pass: false,
      reason: "the answer declines although turn 1 retrieved 5 chunk(s), 2 relevant: I don't know.",
    });
    expect(score(abstainsScorer, oneTurn("I don't know.", [chunk(1, "zero")]), relevant)).toStrictEqual({
      value: 1,
      pass: true,
      reason: "the answer declines and turn 1 retrieved 1 chunk(s), 0 relevant",
    });
    expect(score(abstainsScorer, oneTurn("25 days.", []), { whenNothingRelevant: true })).toStrictEqual({
      value: 0,
      pass: false,
      reason: "nothing relevant was retrieved (turn 1 retrieved 0 chunk(s), 0 relevant) but the answer does not decline: 25 days.",
    });
  });

  it("reads the last turn, or the turn asked for", () => {
    const events = buildLog([...turnOf("I don't know.", [chunk(1, "zero")]), done("I don't know."), user("q2"), answer("25 days."), done("25 days.")]);
    expect(score(abstainsScorer, events, {})).toMatchObject({ pass: false, reason: "the answer does not decline (turn 2 retrieved 0 chunk(s), 0 relevant): 25 days." });
    expect(score(abstainsScorer, events, { turn: 1 })).toMatchObject({ pass: true, reason: "the answer declines (turn 1 retrieved 1 chunk(s), 1 relevant)" });
  });
});

describe("citations", () => {
  const three = ranked.slice(0, 3);

  it("a marker past the passages, or below 1, fails and names each once", () => {
    expect(score(citationsScorer, oneTurn("See [4], [0] and [4].", three), {})).toStrictEqual({
      value: 0,
      pass: false,
      reason: "the answer cites [4], [0], but turn 1 retrieved 3 passage(s)",
      details: { cited: [4, 0, 4], passages: 3 },
    });
  });

  it("no marker fails with the answer, unless allowed", () => {
    expect(score(citationsScorer, oneTurn("No markers here.", three), {})).toStrictEqual({ value: 0, pass: false, reason: "the answer of turn 1 cites no passage: No markers here." });
    expect(score(citationsScorer, oneTurn("", three), {})).toMatchObject({ reason: "the answer of turn 1 cites no passage: (empty answer)" });
    expect(score(citationsScorer, oneTurn("No markers here.", three), { allowNone: true })).toStrictEqual({ value: 1, pass: true, reason: "the answer cites nothing (allowed)" });
  });

  it("resolved markers are listed once each, with the passages' ids", () => {
    expect(score(citationsScorer, oneTurn("Alpha [2][1]. Zero [1].", three), {})).toStrictEqual({
      value: 1,
      pass: true,
      reason: "every citation resolves: [2] d.md#2:00000002, [1] d.md#1:00000001",
    });
  });

  it("sentences without a marker count only with everySentence, which names the first three", () => {
    const text = "Alpha [1]. Beta is also there. Gamma is listed too. Delta comes after that. Epsilon is the fifth one.";
    expect(score(citationsScorer, oneTurn(text, three), {})).toMatchObject({ pass: true });
    expect(score(citationsScorer, oneTurn(text, three), { everySentence: true })).toStrictEqual({
      value: 0,
      pass: false,
      reason: '4 sentence(s) state a fact without a citation: "Beta is also there.", "Gamma is listed too.", "Delta comes after that."',
    });
  });

  it("a fact is a sentence of four words or one with a digit; list markers are not words", () => {
    const answerText = [
      "- Leave is 25 days [1].",
      "12. Twelve weeks of parental leave.",
      "A bonus is paid yearly.",
      "Bonuses - paid in March - are yearly.",
      "Do you want more details about leave?",
      "Yes it is.",
      "(Yes) it is.",
      "It is 5.",
      "Leave is twenty days",
    ].join("\n");
    expect(uncitedFacts(answerText)).toEqual(["Twelve weeks of parental leave.", "A bonus is paid yearly.", "Bonuses - paid in March - are yearly.", "It is 5.", "Leave is twenty days"]);
  });
});

describe("ranking", () => {
  const events = oneTurn("x");

  it("credits ranks in rank order, whatever the order of the judgements", () => {
    expect(rankingMetric("mrr", ranked, ["gamma", "alpha"], 5)).toEqual({ value: 1 / 2, relevantRanks: [2, 4] });
    expect(rankingMetric("ndcg", ranked, ["gamma", "zero", "alpha"], 5).relevantRanks).toEqual([1, 2, 4]);
  });

  it("is 0, not NaN, with nothing to be relevant to", () => {
    expect(rankingMetric("recall", ranked, [], 5).value).toBe(0);
    expect(rankingMetric("ndcg", ranked, [], 5).value).toBe(0);
    expect(rankingMetric("ndcg", ranked, ["alpha"], 0).value).toBe(0);
  });

  it("the reason names the value, the minimum, the relevant ranks and what is missing from the top k", () => {
    expect(score(rankingScorer, events, { metric: "recall", gold: ["alpha", "beta"], k: 2, min: 0.5 })).toStrictEqual({
      value: 0.5,
      pass: true,
      reason: 'recall@2 = 0.5 (min 0.5) for "q": relevant at rank 2; not in the top 2: "beta"',
      details: { metric: "recall", k: 2, value: 0.5, relevantRanks: [2] },
    });
    const long = "a judgement text well over forty characters long";
    expect(score(rankingScorer, events, { metric: "hit_rate", gold: [long, "d.md#9", "xx", "yy", "qq"] })).toMatchObject({
      value: 0,
      pass: false,
      reason: 'hit_rate@10 = 0 (min 1) for "q": no relevant chunk; not in the top 10: "a judgement text well over forty charact…", d.md#9, "xx", "yy"',
    });
  });
});

describe("retrievedChunk", () => {
  const events = buildLog([user("q"), retrieval("c1", "q", [chunk(1, "Alpha Centauri"), chunk(2, "beta")]), answer("a"), done("a")]);

  it("matches text ignoring case unless asked, and an id with or without its hash, within a rank", () => {
    expect(score(retrievedChunkScorer, events, { text: "ALPHA" })).toMatchObject({ pass: true });
    expect(score(retrievedChunkScorer, events, { text: "ALPHA", caseSensitive: true })).toMatchObject({ pass: false });
    expect(score(retrievedChunkScorer, events, { id: "d.md#2" })).toMatchObject({ pass: true });
    expect(score(retrievedChunkScorer, events, { id: "d.md#2", maxRank: 1 })).toMatchObject({ pass: false });
    expect(score(retrievedChunkScorer, events, { id: "d.md#3" })).toMatchObject({ pass: false });
  });
});

describe("what the retrieval scorers share", () => {
  it("a string is a chunk id only when all of it looks like one", () => {
    expect(judgementOf("d.md#12")).toEqual({ id: "d.md#12" });
    expect(judgementOf("d.md#2:0a1b2c3d")).toEqual({ id: "d.md#2:0a1b2c3d" });
    expect(judgementOf("see d.md#2")).toEqual({ text: "see d.md#2" });
    expect(judgementOf("d.md#2 and more")).toEqual({ text: "d.md#2 and more" });
    expect(judgementOf("d.md#2:0a1b2c3d9")).toEqual({ text: "d.md#2:0a1b2c3d9" });
    expect(judgementOf({ text: "d.md#2" })).toEqual({ text: "d.md#2" });
  });

  it("a judgement's text is shown in full up to forty characters", () => {
    expect(describeJudgement({ text: "x".repeat(40) })).toBe(JSON.stringify("x".repeat(40)));
    expect(describeJudgement({ text: "x".repeat(41) })).toBe(JSON.stringify(`${"x".repeat(40)}…`));
    expect(describeJudgement({ id: "d.md#1" })).toBe("d.md#1");
  });

  it("citation markers may hold several numbers of any length, spaced or not", () => {
    expect(citationsIn("[12] [1 ,2] [3,  45] [6,7]")).toEqual([12, 1, 2, 3, 45, 6, 7]);
  });

  it("a turn's answer is its own output; no turn means the run's; a turn past the last has none", () => {
    const run = viewRun(buildLog([...turnOf("first"), done("first"), user("q2"), answer("second"), done("second")]));
    expect([answerOf(run, 1), answerOf(run, 2), answerOf(run, undefined), answerOf(run, 5)]).toEqual(["first", "second", "second", ""]);
  });

  it("a turn's passages are its augment retrieval when it has one, else its tool retrievals' chunks", () => {
    const withBoth = viewRun(buildLog([user("q"), retrieval("c1", "q", [chunk(7, "seven")]), augment(1, [chunk(1, "one"), chunk(2, "two")]), answer("a"), done("a")]));
    expect(passagesOf(withBoth, 1).map((passage) => passage.id)).toEqual(["d.md#1:00000001", "d.md#2:00000002"]);
    const toolsOnly = viewRun(buildLog([user("q"), retrieval("c1", "q", [chunk(7, "seven"), chunk(8, "eight")]), retrieval("c2", "q", [chunk(8, "eight")]), answer("a"), done("a")]));
    expect(passagesOf(toolsOnly, 1).map((passage) => passage.id)).toEqual(["d.md#7:00000007", "d.md#8:00000008"]);
  });
});
