import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkAddress, chunkDocument, chunkId, sentences, type SourceDocument } from "../../src/retrieval/index.js";

const doc = (path: string, text: string, format: SourceDocument["format"] = "markdown"): SourceDocument => ({ path, text, format, tags: [], meta: {} });

describe("chunk ids", () => {
  it("are <path>#<n>:<8 hex of sha256([path, n, text])>, the same on every machine", () => {
    // Pinned: a change here changes every recorded retrieval.
    expect(chunkId("docs/a.md", 1, "Hello.")).toBe("docs/a.md#1:fd32fe25");
    expect(chunkId("policies/leave.md", 1, "Permanent employees get 25 days of paid annual leave per calendar year.")).toBe("policies/leave.md#1:01ca2a81");
  });

  it("change with the text, the position and the path, and drop to <path>#<n> as an address", () => {
    const base = chunkId("a.md", 1, "x");
    expect(chunkId("a.md", 1, "y")).not.toBe(base);
    expect(chunkId("a.md", 2, "x")).not.toBe(base);
    expect(chunkId("b.md", 1, "x")).not.toBe(base);
    expect(chunkAddress(base)).toBe("a.md#1");
    expect(chunkAddress("faq.jsonl:7#1:0123abcd")).toBe("faq.jsonl:7#1");
    expect(chunkAddress("faq.jsonl:7#1")).toBe("faq.jsonl:7#1");
  });

  it("property: chunking is a function of the document — same ids twice, unique, positions 1..n", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.constantFrom("markdown", "paragraph", "sentence", "fixed" as const), (text, strategy) => {
        const options = strategy === "fixed" ? { strategy, size: 40, overlap: 10 } : { strategy };
        const first = chunkDocument(doc("d.md", text), options);
        expect(chunkDocument(doc("d.md", text), options)).toEqual(first);
        expect(new Set(first.map((chunk) => chunk.id)).size).toBe(first.length);
        expect(first.map((chunk) => chunk.position)).toEqual(first.map((_, index) => index + 1));
        for (const chunk of first) expect(chunk.text.trim()).toBe(chunk.text);
      }),
    );
  });
});

describe("strategies", () => {
  const text = "Intro line.\n\n# Refunds\n\nRefunds take 5 days. Card refunds take longer!\n\n## Exceptions\nGift cards are final.\n\n# Shipping\n\nShips in two days.";

  it("markdown: one chunk per section with its heading line, and the heading trail", () => {
    const chunks = chunkDocument(doc("p.md", text));
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      "Intro line.",
      "# Refunds\n\nRefunds take 5 days. Card refunds take longer!",
      "## Exceptions\nGift cards are final.",
      "# Shipping\n\nShips in two days.",
    ]);
    expect(chunks.map((chunk) => chunk.headings)).toEqual([[], ["Refunds"], ["Refunds", "Exceptions"], ["Shipping"]]);
  });

  it("markdown: a long section splits at blank lines, packing paragraphs up to maxChars; fenced code never splits", () => {
    const paragraphs = ["a".repeat(40), "b".repeat(40), "c".repeat(40)];
    expect(chunkDocument(doc("t.txt", paragraphs.join("\r\n\r\n"), "text"), { maxChars: 90 }).map((chunk) => chunk.text)).toEqual([`${paragraphs[0]}\n\n${paragraphs[1]}`, paragraphs[2]]);
    expect(chunkDocument(doc("a.md", "# Script\n\n```sh\n# install\n\nnpm ci\n```\n")).map((chunk) => chunk.text)).toEqual(["# Script\n\n```sh\n# install\n\nnpm ci\n```"]);
  });

  it("paragraph: body paragraphs only, each under its headings", () => {
    const chunks = chunkDocument(doc("p.md", text), { strategy: "paragraph" });
    expect(chunks.map((chunk) => [chunk.text, chunk.headings.at(-1)])).toEqual([
      ["Intro line.", undefined],
      ["Refunds take 5 days. Card refunds take longer!", "Refunds"],
      ["Gift cards are final.", "Exceptions"],
      ["Ships in two days.", "Shipping"],
    ]);
  });

  it("sentence: one chunk per sentence, in any script", () => {
    expect(chunkDocument(doc("p.md", text), { strategy: "sentence" }).map((chunk) => chunk.text)).toEqual([
      "Intro line.",
      "Refunds take 5 days.",
      "Card refunds take longer!",
      "Gift cards are final.",
      "Ships in two days.",
    ]);
    expect(sentences("休暇は25日です。 病欠は10日です。")).toEqual(["休暇は25日です。", "病欠は10日です。"]);
  });

  it("fixed: windows of size characters overlapping by overlap, ending at whitespace", () => {
    const words = Array.from({ length: 30 }, (_, index) => `w${String(index).padStart(2, "0")}`).join(" ");
    const chunks = chunkDocument(doc("f.txt", words, "text"), { strategy: "fixed", size: 40, overlap: 12 });
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(40);
    for (const [index, chunk] of chunks.entries()) {
      if (index === 0) continue;
      // The window starts inside the previous one: the two share text.
      const previous = chunks[index - 1]!.text;
      expect(previous.includes(chunk.text.slice(0, 3))).toBe(true);
    }
    expect(chunks.map((chunk) => chunk.text).join(" ")).toContain("w29");
    expect(() => chunkDocument(doc("f.txt", words, "text"), { strategy: "fixed", size: 10, overlap: 10 })).toThrow(/overlap/);
  });

  it("plain text has no headings: # starts no section", () => {
    expect(chunkDocument(doc("n.txt", "# not a heading\n\nbody", "text"), { strategy: "paragraph" }).map((chunk) => chunk.text)).toEqual(["# not a heading", "body"]);
  });

  it("gives no chunks for blank text", () => {
    expect(chunkDocument(doc("empty.md", " \n\n \n"))).toEqual([]);
  });
});
