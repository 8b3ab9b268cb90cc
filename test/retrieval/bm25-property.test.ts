import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bm25Index, compareCodePoints, roundScore, tokenize } from "../../src/retrieval/index.js";

/** BM25 written the plain way: every document scored, all hits sorted. */
function reference(documents: { id: string; text: string }[], query: string, limit: number, k1 = 1.2, b = 0.75) {
  const tokenized = documents.map((document) => tokenize(document.text));
  const average = tokenized.reduce((sum, tokens) => sum + tokens.length, 0) / Math.max(1, documents.length);
  const terms = [...new Set(tokenize(query))].filter((term) => tokenized.some((tokens) => tokens.includes(term)));
  const hits = documents.flatMap((document, index) => {
    const tokens = tokenized[index]!;
    let score = 0;
    for (const term of terms) {
      const tf = tokens.filter((token) => token === term).length;
      if (tf === 0) continue;
      const df = tokenized.filter((list) => list.includes(term)).length;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * tokens.length) / average));
    }
    return score > 0 ? [{ id: document.id, score: roundScore(score) }] : [];
  });
  hits.sort((x, y) => y.score - x.score || compareCodePoints(x.id, y.id));
  return hits.slice(0, limit);
}

describe("Bm25Index", () => {
  it("property: the top k equal the plain all-scores-sorted ranking, ties by id, whatever the document order", () => {
    const word = fc.constantFrom("leave", "days", "annual", "sick", "Ünïcode", "東京", "a", "b");
    const text = fc.array(word, { minLength: 0, maxLength: 12 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), text }), { selector: (document) => document.id, maxLength: 12 }), fc.array(word, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 6 }), (documents, query, limit) => {
        const expected = reference(documents, query.join(" "), limit);
        expect(new Bm25Index(documents).search(query.join(" "), limit)).toEqual(expected);
        expect(new Bm25Index([...documents].reverse()).search(query.join(" "), limit)).toEqual(expected);
      }),
    );
  });

  it("minScore drops low hits; accept filters before the top k is cut", () => {
    const index = new Bm25Index([
      { id: "a", text: "leave leave leave" },
      { id: "b", text: "leave days" },
      { id: "c", text: "days" },
    ]);
    const all = index.search("leave days", 3);
    expect(index.search("leave days", 3, { minScore: all[1]!.score }).map((hit) => hit.id)).toEqual(all.slice(0, 2).map((hit) => hit.id));
    expect(index.search("leave days", 1, { accept: (id) => id !== all[0]!.id })).toEqual([all[1]]);
    expect(() => new Bm25Index([], { b: 2 })).toThrow(RangeError);
  });
});
