import { describe, expect, it } from "vitest";
import { Bm25Index, globBase, globToRegExp, roundScore, tokenize } from "../../src/tools/builtin/index.js";

describe("tokenize", () => {
  it("lowercases and splits on anything that is not a letter, mark or digit", () => {
    expect(tokenize("Hello, WORLD! refund_policy v2.0")).toEqual(["hello", "world", "refund", "policy", "v2", "0"]);
  });

  it("keeps letters of any script and folds compatibility forms", () => {
    expect(tokenize("Café naïve Straße Ελλάδα 東京")).toEqual(["café", "naïve", "straße", "ελλάδα", "東京"]);
    expect(tokenize("cafe\u0301 ﬁle ＦＵＬＬ１")).toEqual(["café", "file", "full1"]);
  });
});

describe("Bm25Index", () => {
  it("uses the standard idf, ln(1 + (N - df + 0.5) / (df + 0.5))", () => {
    const index = new Bm25Index([
      { id: "a", text: "cat" },
      { id: "b", text: "dog" },
      { id: "c", text: "dog" },
    ]);
    expect(index.idf("cat")).toBe(Math.log(1 + 2.5 / 1.5));
    expect(index.idf("dog")).toBe(Math.log(1 + 1.5 / 2.5));
    expect(index.idf("absent")).toBe(Math.log(1 + 3.5 / 0.5));
  });

  it("scores with k1 = 1.2 and b = 0.75, rounded to 6 decimals", () => {
    const index = new Bm25Index([
      { id: "a", text: "cat cat dog" },
      { id: "b", text: "dog" },
    ]);
    // tf 2, document length 3, average length 2, df 1 of N 2.
    const expected = (Math.log(1 + 1.5 / 1.5) * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / 2));
    expect(index.search("cat", 10)).toEqual([{ id: "a", score: roundScore(expected) }]);
    expect(roundScore(expected)).toBe(0.835575);
  });

  it("ranks the obviously relevant document first", () => {
    const index = new Bm25Index([
      { id: "shipping", text: "Orders ship within two business days. Tracking numbers are emailed." },
      { id: "refunds", text: "Refunds are issued to the original card within 5 days of receiving the return." },
      { id: "accounts", text: "Reset your password from the account page. Two-factor login is optional." },
    ]);
    expect(index.search("how long does a refund to my card take", 3)[0]?.id).toBe("refunds");
    expect(index.search("reset password", 3).map((hit) => hit.id)).toEqual(["accounts"]);
  });

  it("orders equal scores by id, whatever order the documents came in", () => {
    const documents = [
      { id: "b", text: "same words" },
      { id: "c", text: "other" },
      { id: "a", text: "same words" },
    ];
    const forward = new Bm25Index(documents).search("same", 10);
    const backward = new Bm25Index([...documents].reverse()).search("same", 10);
    expect(forward.map((hit) => hit.id)).toEqual(["a", "b"]);
    expect(backward).toEqual(forward);
  });

  it("returns at most `limit` hits, and none for a query that shares no word", () => {
    const index = new Bm25Index(["one", "two", "three"].map((word, n) => ({ id: `d${n}`, text: `shared ${word}` })));
    expect(index.search("shared", 2)).toHaveLength(2);
    expect(index.search("nothing here", 5)).toEqual([]);
    expect(index.search("?!", 5)).toEqual([]);
  });

  it("counts a repeated query word once", () => {
    const index = new Bm25Index([
      { id: "a", text: "alpha beta" },
      { id: "b", text: "beta gamma" },
    ]);
    expect(index.search("alpha alpha alpha beta", 2)).toEqual(index.search("alpha beta", 2));
  });
});

describe("glob patterns", () => {
  it("* and ? stay within one path segment, ** crosses them", () => {
    const star = globToRegExp("docs/*.md");
    expect(star.test("docs/a.md")).toBe(true);
    expect(star.test("docs/sub/a.md")).toBe(false);
    const deep = globToRegExp("docs/**/*.md");
    expect(["docs/a.md", "docs/x/y/a.md"].every((file) => deep.test(file))).toBe(true);
    expect(deep.test("docs/a.txt")).toBe(false);
    expect(globToRegExp("v?.md").test("v1.md")).toBe(true);
  });

  it("treats every other character literally", () => {
    expect(globToRegExp("a+b (1).md").test("a+b (1).md")).toBe(true);
    expect(globToRegExp("a.md").test("aXmd")).toBe(false);
  });

  it("finds the folder to walk from", () => {
    expect(globBase("docs/guides/**/*.md")).toBe("docs/guides");
    expect(globBase("*.md")).toBe("");
    expect(globBase("/srv/docs/*.md")).toBe("/srv/docs");
    expect(globBase("/*.md")).toBe("/");
  });
});
