/**
 * Okapi BM25 over an in-memory set of documents (chunks). Pure and deterministic: the same
 * documents and query give the same scores and order on every machine, so retrieval events replay.
 *
 *   score(D, Q) = Σ over distinct query terms t in D of
 *                 idf(t) · tf(t, D) · (k1 + 1) / (tf(t, D) + k1 · (1 − b + b · |D| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * k1 = 1.2 and b = 0.75 by default. Scores are rounded to SCORE_DECIMALS before ranking, and
 * equal scores are ordered by id in code-point order (never a locale comparison).
 */
import { tokenize, type Analyzer } from "./tokenize.js";

export interface Bm25Document {
  id: string;
  text: string;
}

export interface Bm25Hit {
  id: string;
  /** Rounded to `SCORE_DECIMALS` so logged scores do not flicker in the last bits. */
  score: number;
}

export interface Bm25Options {
  /** Term-frequency saturation; default 1.2. */
  k1?: number;
  /** Length normalisation, 0 (none) to 1 (full); default 0.75. */
  b?: number;
  /** How text becomes terms; default `tokenize` (no stopwords, no stemming). */
  analyze?: Analyzer;
}

export interface Bm25SearchOptions {
  /** Hits scoring below this (after rounding) are dropped. Default 0: any shared term counts. */
  minScore?: number;
  /** Only documents it accepts are scored (metadata filters); idf stays that of the whole corpus. */
  accept?: (id: string) => boolean;
}

export const SCORE_DECIMALS = 6;
export const DEFAULT_K1 = 1.2;
export const DEFAULT_B = 0.75;

export { tokenize };

interface Posting {
  /** Positions (in `ids`) of the documents holding the term, ascending. */
  documents: number[];
  /** The term's frequency in each of those documents. */
  frequencies: number[];
}

export class Bm25Index {
  private readonly ids: string[];
  private readonly postings = new Map<string, Posting>();
  /** k1 · (1 − b + b · |D| / avgdl) per document, computed once at indexing. */
  private readonly lengthNorms: Float64Array;
  /** Scratch space for one search: a score per document, reset after use. */
  private readonly scratch: Float64Array;
  readonly k1: number;
  readonly b: number;
  readonly analyze: Analyzer;

  constructor(documents: readonly Bm25Document[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? DEFAULT_K1;
    this.b = options.b ?? DEFAULT_B;
    this.analyze = options.analyze ?? tokenize;
    if (!(Number.isFinite(this.k1) && this.k1 >= 0)) throw new RangeError(`BM25 k1 must be a finite number >= 0, got ${this.k1}`);
    if (!(this.b >= 0 && this.b <= 1)) throw new RangeError(`BM25 b must be between 0 and 1, got ${this.b}`);
    this.ids = documents.map((document) => document.id);
    const lengths = new Float64Array(documents.length);
    documents.forEach(({ text }, position) => {
      const tokens = this.analyze(text);
      lengths[position] = tokens.length;
      const termFrequencies = new Map<string, number>();
      for (const token of tokens) termFrequencies.set(token, (termFrequencies.get(token) ?? 0) + 1);
      for (const [term, frequency] of termFrequencies) {
        const posting = this.postings.get(term);
        if (posting) {
          posting.documents.push(position);
          posting.frequencies.push(frequency);
        } else this.postings.set(term, { documents: [position], frequencies: [frequency] });
      }
    });
    const totalLength = lengths.reduce((sum, length) => sum + length, 0);
    const averageLength = documents.length === 0 ? 0 : totalLength / documents.length;
    this.lengthNorms = lengths.map((length) => this.k1 * (1 - this.b + (this.b * length) / averageLength));
    this.scratch = new Float64Array(documents.length);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Inverse document frequency with the +1 inside the log, so it is never negative. */
  idf(term: string): number {
    const documentFrequency = this.postings.get(term)?.documents.length ?? 0;
    const count = this.ids.length;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  /**
   * The `limit` best documents that share at least one term with the query, best first;
   * equal (rounded) scores are ordered by id. Repeated query words count once.
   */
  search(query: string, limit: number, options: Bm25SearchOptions = {}): Bm25Hit[] {
    const terms = [...new Set(this.analyze(query))].filter((term) => this.postings.has(term));
    if (terms.length === 0 || limit <= 0) return [];
    const scores = this.scratch;
    const touched: number[] = [];
    // Terms in query order, so every document's sum is added up in the same order on every run.
    for (const term of terms) {
      const idf = this.idf(term);
      const { documents, frequencies } = this.postings.get(term)!;
      for (let index = 0; index < documents.length; index++) {
        const position = documents[index]!;
        const frequency = frequencies[index]!;
        if (scores[position] === 0) touched.push(position);
        scores[position]! += (idf * frequency * (this.k1 + 1)) / (frequency + this.lengthNorms[position]!);
      }
    }
    const minScore = options.minScore ?? 0;
    // The best `limit` so far, best first: a short sorted list beats sorting every hit.
    const top: Bm25Hit[] = [];
    for (const position of touched) {
      const raw = scores[position]!;
      scores[position] = 0;
      const score = roundScore(raw);
      if (!(score > 0 && score >= minScore)) continue;
      if (top.length === limit && !before(score, this.ids[position]!, top[limit - 1]!)) continue;
      const id = this.ids[position]!;
      if (options.accept && !options.accept(id)) continue;
      let at = top.length;
      while (at > 0 && before(score, id, top[at - 1]!)) at--;
      top.splice(at, 0, { id, score });
      if (top.length > limit) top.pop();
    }
    return top;
  }
}

/** Rounded scores decide, best first; equal scores go by id. Rounded before ranking, so the order always agrees with the scores the log shows. */
function before(score: number, id: string, other: Bm25Hit): boolean {
  return score > other.score || (score === other.score && compareCodePoints(id, other.id) < 0);
}

export function roundScore(score: number): number {
  const factor = 10 ** SCORE_DECIMALS;
  return Math.round(score * factor) / factor;
}

/** UTF-16 code-unit order (never a locale comparison): the same on every machine. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
