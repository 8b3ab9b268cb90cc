import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DocumentError } from "../../src/errors/index.js";
import { analyzer, compileFilter, Corpus, ENGLISH_STOPWORDS, loadDocuments, mergeFilters, parseDocument, stemEnglish, tokenize } from "../../src/retrieval/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "retrace-retrieval-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("documents", () => {
  it("Markdown: front matter gives title, tags and fields; without a title, the first # heading", () => {
    const [withFront] = parseDocument("p/leave.md", "---\ntitle: Leave\ntags: [hr, leave]\nowner: people\nyear: 2026\n---\n# Ignored\n\nBody.", { path: "p/leave.md" });
    expect(withFront).toMatchObject({ path: "p/leave.md", title: "Leave", tags: ["hr", "leave"], meta: { owner: "people", year: 2026 }, text: "# Ignored\n\nBody." });
    const [plain] = parseDocument("a.md", "Intro\n\n# The title\n\ntext", { path: "a.md", tags: ["extra"] });
    expect(plain).toMatchObject({ title: "The title", tags: ["extra"], meta: {} });
    expect(parseDocument("n.txt", "---\ntitle: x\n---\n", { path: "n.txt" })[0]?.title).toBeUndefined();
  });

  it("bad front matter is a DocumentError naming the file", () => {
    expect(() => parseDocument("bad.md", "---\ntitle: [unclosed\n---\nx", { path: "bad.md" })).toThrow(DocumentError);
    expect(() => parseDocument("list.md", "---\n- a\n---\nx", { path: "list.md" })).toThrow(/bad|mapping/);
  });

  it("JSON Lines: one document per record, named by its id field (or line), text from text_field", () => {
    const records = parseDocument("faq.jsonl", '{"id":"a","title":"A","body":"one","tags":"x, y","lang":"en"}\n\n{"body":"two"}\n', { path: "faq.jsonl", textField: "body" });
    expect(records).toEqual([
      { path: "faq.jsonl:a", text: "one", format: "text", title: "A", tags: ["x", "y"], meta: { lang: "en" } },
      { path: "faq.jsonl:3", text: "two", format: "text", tags: [], meta: {} },
    ]);
    const error = (() => {
      try {
        parseDocument("faq.jsonl", '{"id":"a","text":"one"}\n{"body":"two"}\n', { path: "faq.jsonl" });
      } catch (caught) {
        return caught as DocumentError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(DocumentError);
    expect(error?.describe()).toBe('faq.jsonl entry line 2: the record has no string field "text" (set text_field to the field holding its text)');
    expect(() => parseDocument("x.jsonl", "{not json", { path: "x.jsonl" })).toThrow(/not valid JSON/);
  });

  it("loads globs in code-point order, names them relative to the base with /, and refuses duplicate JSON Lines ids", async () => {
    await mkdir(path.join(dir, "docs/sub"), { recursive: true });
    await writeFile(path.join(dir, "docs/b.md"), "# B\n\nbee");
    await writeFile(path.join(dir, "docs/a.md"), "# A\n\nay");
    await writeFile(path.join(dir, "docs/sub/c.txt"), "sea");
    await writeFile(path.join(dir, "faq.jsonl"), '{"id":1,"text":"one"}\n{"text":"two","tags":["t"]}\n');
    const docs = await loadDocuments(["docs/**/*", "faq.jsonl", { source: "inline/x", text: "inline" }], dir);
    expect(docs.map((doc) => [doc.path, doc.format])).toEqual([
      ["docs/a.md", "markdown"],
      ["docs/b.md", "markdown"],
      ["docs/sub/c.txt", "text"],
      ["faq.jsonl:1", "text"],
      ["faq.jsonl:2", "text"],
      ["inline/x", "text"],
    ]);
    await writeFile(path.join(dir, "dup.jsonl"), '{"id":"a","text":"one"}\n{"id":"a","text":"two"}\n');
    await expect(loadDocuments(["dup.jsonl"], dir)).rejects.toThrow(/two records are named dup\.jsonl:a/);
  });
});

describe("filters", () => {
  const docs = [
    ...parseDocument("policies/leave.md", "---\ntags: [hr, leave]\nowner: people\n---\nLeave is 25 days.", { path: "policies/leave.md" }),
    ...parseDocument("policies/it.md", "---\ntitle: IT rules\ntags: [it]\nowner: it\n---\nLeave your laptop locked.", { path: "policies/it.md" }),
    ...parseDocument("notes/leave.txt", "Leave notes.", { path: "notes/leave.txt" }),
  ];
  const corpus = new Corpus(docs);
  const sources = (filter: Parameters<typeof compileFilter>[0]) => corpus.search("leave", { topK: 10, ...(filter ? { filter } : {}) }).map((chunk) => chunk.source).sort();

  it("path globs, all listed tags, title text, and front-matter fields (any of a list)", () => {
    expect(sources(undefined)).toEqual(["notes/leave.txt", "policies/it.md", "policies/leave.md"]);
    expect(sources({ path: "policies/*.md" })).toEqual(["policies/it.md", "policies/leave.md"]);
    expect(sources({ tags: ["hr", "leave"] })).toEqual(["policies/leave.md"]);
    expect(sources({ tags: ["hr", "it"] })).toEqual([]);
    expect(sources({ title: "it rules" })).toEqual(["policies/it.md"]);
    expect(sources({ owner: ["it", "people"] })).toEqual(["policies/it.md", "policies/leave.md"]);
    expect(sources({ owner: "people", path: "notes/*" })).toEqual([]);
  });

  it("a call's filter narrows the configured one, never widens it", () => {
    expect(mergeFilters({ owner: ["it", "people"] }, { owner: "it" })).toEqual({ owner: ["it"] });
    expect(sources(mergeFilters({ owner: "people" }, { owner: "it" }))).toEqual([]);
    expect(mergeFilters({ tags: "hr" }, { tags: ["leave"] })).toEqual({ tags: ["hr", "leave"] });
    expect(mergeFilters(undefined, { a: 1 })).toEqual({ a: 1 });
  });
});

describe("analysis", () => {
  it("tokenizes Unicode words locale-free; stopwords and the stemmer only when asked", () => {
    expect(tokenize("Café ＦＵＬＬ１ Straße İstanbul")).toEqual(["café", "full1", "straße", "i̇stanbul"]);
    expect(analyzer()("The employees")).toEqual(["the", "employees"]);
    expect(analyzer({ stopwords: true })("The employees")).toEqual(["employees"]);
    expect(analyzer({ stopwords: ["Employees"] })("The employees")).toEqual(["the"]);
    expect(analyzer({ stemmer: "english" })("policies employees accrued accruing quickly laptops glass status days")).toEqual([
      "policy", "employee", "accru", "accru", "quick", "laptop", "glass", "status", "day",
    ]);
    expect(ENGLISH_STOPWORDS).toContain("the");
    expect(stemEnglish("straßen")).toBe("straßen");
  });
});
