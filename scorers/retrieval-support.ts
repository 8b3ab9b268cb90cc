/** What the retrieval scorers share: which retrieval a check reads, judgements, a turn's answer and passages. */
import type { RetrievalView, RetrievedChunk, RunView } from "../src/contracts/index.js";
import { chunkAddress } from "../src/retrieval/chunk.js";

/** A relevance judgement: a chunk id (with or without its `:hash`), or text a relevant chunk contains (ignoring case). */
export type Judgement = string | { id: string } | { text: string };

const CHUNK_ID = /^\S+#\d+(?::[0-9a-f]{8})?$/;

/** A plain string is an id when it looks like one (`path#n` or `path#n:hash`), otherwise text. */
export function judgementOf(item: Judgement): { id: string } | { text: string } {
  if (typeof item !== "string") return item;
  return CHUNK_ID.test(item) ? { id: item } : { text: item };
}

export function matchesJudgement(chunk: Pick<RetrievedChunk, "id" | "text">, judgement: { id: string } | { text: string }): boolean {
  if ("id" in judgement) return chunk.id === judgement.id || chunkAddress(chunk.id) === judgement.id;
  return chunk.text.toLowerCase().includes(judgement.text.toLowerCase());
}

export function describeJudgement(judgement: { id: string } | { text: string }): string {
  return "id" in judgement ? judgement.id : JSON.stringify(judgement.text.length > 40 ? `${judgement.text.slice(0, 40)}…` : judgement.text);
}

/** The retrievals of a turn (all of them when no turn is given). */
export function retrievalsOf(run: RunView, turn: number | undefined): RetrievalView[] {
  return turn === undefined ? run.retrievals : run.retrievals.filter((retrieval) => retrieval.turn === turn);
}

/** The turn a check reads by default: the last one. */
export function lastTurn(run: RunView): number {
  return run.turns.length;
}

export function answerOf(run: RunView, turn: number | undefined): string {
  if (turn === undefined) return run.output;
  return run.turns[turn - 1]?.output ?? "";
}

/**
 * The passages `[n]` refers to in a turn's answer: the turn's augment retrieval when it has
 * one (numbered as the request numbered them), else every chunk its tool retrievals returned,
 * in order, each id once.
 */
export function passagesOf(run: RunView, turn: number): RetrievedChunk[] {
  const retrievals = retrievalsOf(run, turn);
  const augment = retrievals.find((retrieval) => retrieval.mode === "augment");
  if (augment) return augment.chunks;
  const seen = new Set<string>();
  const passages: RetrievedChunk[] = [];
  for (const chunk of retrievals.flatMap((retrieval) => retrieval.chunks)) {
    if (seen.has(chunk.id)) continue;
    seen.add(chunk.id);
    passages.push(chunk);
  }
  return passages;
}

const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** Every citation number in a text, in order: `[1]`, `[2][3]`, `[1, 4]`. */
export function citationsIn(text: string): number[] {
  const found: number[] = [];
  for (const match of text.matchAll(MARKER)) for (const part of match[1]!.split(",")) found.push(Number(part.trim()));
  return found;
}

export function hasCitation(text: string): boolean {
  return citationsIn(text).length > 0;
}
