/**
 * Okapi BM25 over an in-memory set of documents. Pure and deterministic: the same documents
 * and query give the same scores and order on every machine, so retrieval events replay.
 */

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
  k1?: number;
  b?: number;
}

export const SCORE_DECIMALS = 6;

const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Lowercased runs of letters and digits in any script. NFKC first, so that "ﬁle" and "file"
 * or full-width digits match their plain forms.
 */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
}

interface IndexedDocument {
  id: string;
  length: number;
  termFrequencies: Map<string, number>;
}

export class Bm25Index {
  private readonly documents: IndexedDocument[];
  private readonly documentFrequencies = new Map<string, number>();
  private readonly averageLength: number;
  private readonly k1: number;
  private readonly b: number;

  constructor(documents: readonly Bm25Document[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.documents = documents.map(({ id, text }) => {
      const tokens = tokenize(text);
      const termFrequencies = new Map<string, number>();
      for (const token of tokens) termFrequencies.set(token, (termFrequencies.get(token) ?? 0) + 1);
      for (const term of termFrequencies.keys()) this.documentFrequencies.set(term, (this.documentFrequencies.get(term) ?? 0) + 1);
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
    const documentFrequency = this.documentFrequencies.get(term) ?? 0;
    const count = this.documents.length;
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  /**
   * The `limit` best documents that share at least one term with the query, best first;
   * equal (rounded) scores are ordered by id. Repeated query words count once.
   */
  search(query: string, limit: number): Bm25Hit[] {
    const terms = [...new Set(tokenize(query))].filter((term) => this.documentFrequencies.has(term));
    if (terms.length === 0) return [];
    const idfs = terms.map((term) => this.idf(term));
    const hits: Bm25Hit[] = [];
    for (const document of this.documents) {
      let score = 0;
      terms.forEach((term, index) => {
        const frequency = document.termFrequencies.get(term) ?? 0;
        if (frequency === 0) return;
        const lengthNorm = 1 - this.b + (this.b * document.length) / this.averageLength;
        score += (idfs[index]! * frequency * (this.k1 + 1)) / (frequency + this.k1 * lengthNorm);
      });
      if (score > 0) hits.push({ id: document.id, score: roundScore(score) });
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

export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
