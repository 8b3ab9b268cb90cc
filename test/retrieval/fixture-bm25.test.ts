// BM25 on the fixture corpus (fixtures/retrieval) against scores worked out by hand from the
// formula in src/retrieval/bm25.ts, and every fixture query's judgement found at rank 1.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Corpus, loadDocuments, roundScore, type SourceDocument } from "../../src/retrieval/index.js";
import { rankingMetric } from "../../scorers/index.js";

const root = path.resolve(import.meta.dirname, "../../fixtures/retrieval");
const sources = ["policies/*.md", "faq.jsonl"];
let documents: SourceDocument[];

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
/** One query term's part of a chunk's score, with k1 = 1.2 and b = 0.75. */
const part = (n: number, df: number, tf: number, dl: number, avgdl: number) => (idf(n, df) * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * dl) / avgdl));

beforeAll(async () => {
  documents = await loadDocuments(sources, root);
});

describe("BM25 on the fixture policies, by hand", () => {
  it("has 16 paragraph chunks: 14 from the four policies (front matter and heading-only sections give none) and 2 FAQ records", () => {
    const corpus = new Corpus(documents, { chunking: { strategy: "paragraph" } });
    expect(corpus.chunks).toHaveLength(16);
    expect(corpus.chunks.filter((chunk) => chunk.source.startsWith("faq.jsonl:")).map((chunk) => chunk.source)).toEqual(["faq.jsonl:faq-1", "faq.jsonl:faq-2"]);
  });

  it('"How many annual leave days does a permanent employee get?" — plain tokens', () => {
    // 16 chunks, 273 tokens: avgdl 17.0625. Query terms that occur: annual (df 3), leave (df 5),
    // days (df 7), a (df 7), permanent (df 1), get (df 2); "employee" does not (the text says "employees").
    const corpus = new Corpus(documents, { chunking: { strategy: "paragraph" } });
    const [first, second] = corpus.search("How many annual leave days does a permanent employee get?", { topK: 2 });
    const avgdl = 273 / 16;
    // "Permanent employees get 25 days of paid annual leave per calendar year." — 12 tokens, no "a".
    expect(first?.text).toBe("Permanent employees get 25 days of paid annual leave per calendar year.");
    const byHand1 = part(16, 3, 1, 12, avgdl) + part(16, 5, 1, 12, avgdl) + part(16, 7, 1, 12, avgdl) + part(16, 1, 1, 12, avgdl) + part(16, 2, 1, 12, avgdl);
    expect(first?.score).toBe(roundScore(byHand1));
    expect(first?.score).toBe(8.959373);
    // "Temporary employees accrue 2 days of annual leave for each full month worked." — 13 tokens: annual, leave, days.
    expect(second?.source).toBe("policies/leave.md");
    const byHand2 = part(16, 3, 1, 13, avgdl) + part(16, 5, 1, 13, avgdl) + part(16, 7, 1, 13, avgdl);
    expect(second?.score).toBe(roundScore(byHand2));
    expect(second?.score).toBe(3.907862);
  });

  it('"I lost my laptop, what should I do?" — stopwords and the English stemmer', () => {
    // The query keeps two terms: lost (df 1) and laptop (df 2, "laptop" and "Laptops").
    // With stopwords gone the 16 chunks hold 189 terms: avgdl 11.8125. Both chunks have 14 terms.
    const corpus = new Corpus(documents, { chunking: { strategy: "paragraph" }, bm25: { stopwords: true, stemmer: "english" } });
    const ranked = corpus.search("I lost my laptop, what should I do?", { topK: 5 });
    const avgdl = 189 / 16;
    expect(ranked.map((chunk) => chunk.source)).toEqual(["policies/security.md", "policies/remote-work.md"]);
    expect(ranked[0]?.score).toBe(roundScore(part(16, 1, 1, 14, avgdl) + part(16, 2, 1, 14, avgdl)));
    expect(ranked[0]?.score).toBe(4.038708);
    expect(ranked[1]?.score).toBe(roundScore(part(16, 2, 1, 14, avgdl)));
    // Without the stemmer "laptop" misses "Laptops", and the lost-device passage drops to rank 2.
    const plain = new Corpus(documents, { chunking: { strategy: "paragraph" } }).search("I lost my laptop, what should I do?", { topK: 3 });
    expect(plain[1]?.source).toBe("policies/security.md");
  });
});

describe("the fixture judgements", () => {
  const { queries } = JSON.parse(readFileSync(path.join(root, "queries.json"), "utf8")) as { queries: { query: string; relevant: string[] }[] };

  it("with stopwords and stemming, every answerable query finds its passage at rank 1, and the unanswerable one finds nothing", () => {
    const corpus = new Corpus(documents, { chunking: { strategy: "paragraph" }, bm25: { stopwords: true, stemmer: "english" } });
    for (const { query, relevant } of queries) {
      const ranked = corpus.search(query, { topK: 3 });
      if (relevant.length === 0) expect(ranked, query).toEqual([]);
      else expect(rankingMetric("mrr", ranked, relevant, 3).value, query).toBe(1);
    }
  });

  it("plain tokens rank the lost-laptop passage second: MRR@3 over the answerable queries is 11/12", () => {
    const corpus = new Corpus(documents, { chunking: { strategy: "paragraph" } });
    const answerable = queries.filter((entry) => entry.relevant.length > 0);
    const mrr = answerable.reduce((sum, { query, relevant }) => sum + rankingMetric("mrr", corpus.search(query, { topK: 3 }), relevant, 3).value, 0) / answerable.length;
    expect(mrr).toBeCloseTo(11 / 12, 12);
  });
});
