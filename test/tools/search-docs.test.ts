import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetrievedChunkSchema } from "../../src/contracts/index.js";
import { FileToolError, searchDocsTool, type SearchDocsOptions } from "../../src/tools/builtin/index.js";
import { fakeContext } from "./fake-context.js";

let baseDir: string;

const corpus: Record<string, string> = {
  "docs/refunds.md": "# Refunds\n\nRefunds are issued to the original card within 5 business days.\n\n# Exchanges\n\nExchanges are free for 30 days.\n",
  "docs/shipping.md": "# Shipping\n\nOrders ship within two days. Express shipping costs extra.\n",
  "docs/help/accounts.md": "# Accounts\n\nReset your password from the account page.\n",
  "notes.txt": "Refunds, refunds, refunds: a scratch note that is not in the docs folder.\n",
};

async function writeCorpus(): Promise<void> {
  for (const [file, text] of Object.entries(corpus)) {
    await mkdir(path.dirname(path.join(baseDir, file)), { recursive: true });
    await writeFile(path.join(baseDir, file), text);
  }
}

async function search(options: SearchDocsOptions, args: unknown) {
  const tool = searchDocsTool(options);
  const context = fakeContext();
  const result = await tool.run(tool.input.parse(args), context);
  return { result, retrievals: context.retrievals };
}

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(tmpdir(), "retrace-docs-"));
  await writeCorpus();
});

afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

describe("search_docs", () => {
  it("is a safe, read-only, idempotent tool; k defaults to 3 and is at most 20", () => {
    const tool = searchDocsTool({ documents: ["docs/**/*.md"], baseDir });
    expect(tool).toMatchObject({ name: "search_docs", readOnly: true, idempotent: true, risk: "safe" });
    expect(tool.parameters).toMatchObject({ properties: { k: { type: "integer", default: 3, maximum: 20 } }, required: ["query"] });
    expect(tool.input.parse({ query: "x" })).toEqual({ query: "x", k: 3 });
    expect(() => tool.input.parse({ query: "x", k: 21 })).toThrow();
  });

  it("ranks the relevant chunk first and names it <source>#<n>:<content hash>", async () => {
    const { result } = await search({ documents: ["docs/**/*.md"], baseDir }, { query: "when will my refund reach my card?" });
    expect(result.query).toBe("when will my refund reach my card?");
    expect(result.results[0]).toMatchObject({
      id: expect.stringMatching(/^docs\/refunds\.md#1:[0-9a-f]{8}$/),
      source: "docs/refunds.md",
      text: "# Refunds\n\nRefunds are issued to the original card within 5 business days.",
    });
  });

  it("records the ranked chunks as a retrieval, ranks from 1, matching what it returns", async () => {
    const { result, retrievals } = await search({ documents: ["docs/**/*.md"], baseDir }, { query: "shipping days", k: 5 });
    expect(retrievals).toHaveLength(1);
    const [retrieval] = retrievals;
    expect(retrieval?.query).toBe("shipping days");
    expect(retrieval?.chunks.map((chunk) => chunk.rank)).toEqual(result.results.map((_, index) => index + 1));
    expect(retrieval?.chunks.map(({ rank: _rank, ...chunk }) => chunk)).toEqual(result.results);
    for (const chunk of retrieval?.chunks ?? []) expect(RetrievedChunkSchema.parse(chunk)).toEqual(chunk);
    expect(result.results[0]?.id).toMatch(/^docs\/shipping\.md#1:/);
  });

  it("** reaches into subfolders", async () => {
    const { result } = await search({ documents: ["docs/**/*.md"], baseDir }, { query: "password" });
    expect(result.results.map((hit) => hit.id)).toEqual([expect.stringMatching(/^docs\/help\/accounts\.md#1:/)]);
  });

  it("returns scores rounded to 6 decimals, best first", async () => {
    const { result } = await search({ documents: ["docs/**/*.md"], baseDir }, { query: "days", k: 10 });
    const scores = result.results.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(Math.round(score * 1e6) / 1e6).toBe(score);
  });

  it("is deterministic: the same answer from separate tools and from any order of the document list", async () => {
    const files = ["docs/shipping.md", "docs/refunds.md", "docs/help/accounts.md"];
    const first = await search({ documents: files, baseDir }, { query: "days free", k: 10 });
    const second = await search({ documents: [...files].reverse(), baseDir }, { query: "days free", k: 10 });
    expect(second).toEqual(first);
  });

  it("accepts plain paths, absolute paths, globs and inline documents; * does not enter subfolders", async () => {
    const documents = [path.join(baseDir, "notes.txt"), "docs/*.md", { source: "inline/faq", text: "Passwords expire yearly." }];
    const { result } = await search({ documents, baseDir }, { query: "refunds passwords password", k: 20 });
    const sources = new Set(result.results.map((hit) => hit.source));
    // docs/help/accounts.md mentions "password" too, but docs/*.md does not reach it.
    expect(sources).toEqual(new Set(["notes.txt", "docs/refunds.md", "inline/faq"]));
  });

  it("returns nothing, and records an empty retrieval, when no chunk shares a word with the query", async () => {
    const { result, retrievals } = await search({ documents: ["docs/*.md"], baseDir }, { query: "quantum chromodynamics" });
    expect(result.results).toEqual([]);
    expect(retrievals).toEqual([{ query: "quantum chromodynamics", chunks: [] }]);
  });

  it("loads the documents on the first call and only then", async () => {
    await rm(path.join(baseDir, "docs"), { recursive: true });
    const tool = searchDocsTool({ documents: ["docs/*.md"], baseDir });
    await writeCorpus();
    const first = await tool.run(tool.input.parse({ query: "refunds" }), fakeContext());
    await rm(path.join(baseDir, "docs"), { recursive: true });
    expect(await tool.run(tool.input.parse({ query: "refunds" }), fakeContext())).toEqual(first);
  });

  it("fails loudly on a missing document, and recovers once it exists", async () => {
    const tool = searchDocsTool({ documents: ["docs/missing.md"], baseDir });
    await expect(tool.run(tool.input.parse({ query: "x" }), fakeContext())).rejects.toThrow(FileToolError);
    await writeFile(path.join(baseDir, "docs/missing.md"), "now here");
    expect((await tool.run(tool.input.parse({ query: "here" }), fakeContext())).results).toHaveLength(1);
  });

  it("fails loudly on a glob that matches nothing", async () => {
    const tool = searchDocsTool({ documents: ["guides/*.md"], baseDir });
    await expect(tool.run(tool.input.parse({ query: "x" }), fakeContext())).rejects.toMatchObject({
      code: "file_not_found",
      message: expect.stringMatching(/^no document matches "guides\/\*\.md"/),
    });
  });

  it("refuses an empty document list when it is made", () => {
    expect(() => searchDocsTool({ documents: [] })).toThrow(/at least one document/);
  });
});
