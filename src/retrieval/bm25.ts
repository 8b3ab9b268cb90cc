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

interface IndexedDocument {
  id: string;
  length: number;
  termFrequencies: Map<string, number>;
}

export class Bm25Index {
  private readonly documents: IndexedDocument[];
  /** Postings: for each term, the positions (in `documents`) of the documents holding it. */
  private readonly postings = new Map<string, number[]>();
  private readonly averageLength: number;
  readonly k1: number;
  readonly b: number;
  readonly analyze: Analyzer;

  constructor(documents: readonly Bm25Document[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? DEFAULT_K1;
    this.b = options.b ?? DEFAULT_B;
    this.analyze = options.analyze ?? tokenize;
    if (!(Number.isFinite(this.k1) && this.k1 >= 0)) throw new RangeError(`BM25 k1 must be a finite number >= 0, got ${this.k1}`);
    if (!(this.b >= 0 && this.b <= 1)) throw new RangeError(`BM25 b must be between 0 and 1, got ${this.b}`);
    this.documents = documents.map(({ id, text }, position) => {
      const tokens = this.analyze(text);
      const termFrequencies = new Map<string, number>();
      for (const token of tokens) termFrequencies.set(token, (termFrequencies.get(token) ?? 0) + 1);
      for (const term of termFrequencies.keys()) {
        const list = this.postings.get(term);
        if (list) list.push(position);
        else this.postings.set(term, [position]);
      }
      return { id, length: tokens.length, termFrequencies };
    });
    const totalLength = this.documents.reduce((sum, document) => sum + document.length, 0);
    this.averageLength = this.documents.length === 0 ? 0 : totalLength / this.documents.length;
  }

  get size(): number {
    return this.documents.length;
  }

  /** Inverse document frequency with the +1 inside the log, so it is never negative. */
  idf(term: string): number {
    const documentFrequency = this.postings.get(term)?.length ?? 0;
    const count = this.documents.length;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  /**
   * The `limit` best documents that share at least one term with the query, best first;
   * equal (rounded) scores are ordered by id. Repeated query words count once.
   */
  search(query: string, limit: number, options: Bm25SearchOptions = {}): Bm25Hit[] {
    const terms = [...new Set(this.analyze(query))].filter((term) => this.postings.has(term));
    if (terms.length === 0 || limit <= 0) return [];
    const scores = new Map<number, number>();
    for (const term of terms) {
      const idf = this.idf(term);
      for (const position of this.postings.get(term)!) {
        const document = this.documents[position]!;
        const frequency = document.termFrequencies.get(term)!;
        const lengthNorm = 1 - this.b + (this.b * document.length) / this.averageLength;
        scores.set(position, (scores.get(position) ?? 0) + (idf * frequency * (this.k1 + 1)) / (frequency + this.k1 * lengthNorm));
      }
    }
    const minScore = options.minScore ?? 0;
    const hits: Bm25Hit[] = [];
    for (const [position, raw] of scores) {
      const { id } = this.documents[position]!;
      if (options.accept && !options.accept(id)) continue;
      const score = roundScore(raw);
      if (score > 0 && score >= minScore) hits.push({ id, score });
    }
    // Rounded before sorting, so the order always agrees with the scores the log shows.
    hits.sort((a, b) => b.score - a.score || compareCodePoints(a.id, b.id));
    return hits.slice(0, limit);
  }
}

export function roundScore(score: number): number {
  const factor = 10 ** SCORE_DECIMALS;
  return Math.round(score * factor) / factor;
}

/** Code-point order: the same on every machine and in every locale. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
