/**
 * Retrieval's cost on a 10,000-chunk corpus: chunking and indexing (Corpus: chunk ids, analysis,
 * postings) and BM25 queries (top 5). Floors measured in the same run: tokenizing the corpus once
 * (what any index must do) and a brute-force query that scores every chunk without postings.
 * Run: npm run bench -- retrieval   (BENCH_CHUNKS overrides 10000, BENCH_QUERIES 2000)
 */
import { performance } from "node:perf_hooks";
import { analyzer, Corpus, tokenize, type SourceDocument } from "../src/retrieval/index.js";

/** A deterministic generator (bench data only): the same corpus on every run and machine. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 0x1_0000_0000;
  };
}

function vocabulary(size: number, random: () => number): string[] {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const words = new Set<string>();
  while (words.size < size) {
    let word = "";
    const length = 3 + Math.floor(random() * 7);
    for (let index = 0; index < length; index++) word += letters[Math.floor(random() * letters.length)];
    words.add(word);
  }
  return [...words];
}

/** Zipf-like: a few words are very common, most are rare — as in real text. */
function pick(words: readonly string[], random: () => number): string {
  return words[Math.floor(words.length * random() ** 3)]!;
}

export function corpusOf(chunks: number, seed = 1): { documents: SourceDocument[]; queries: (count: number) => string[] } {
  const random = generator(seed);
  const words = vocabulary(8000, random);
  const documents: SourceDocument[] = [];
  // 100 documents of chunks/100 paragraphs each; paragraph chunking gives one chunk per paragraph.
  const perDocument = Math.max(1, Math.round(chunks / 100));
  for (let document = 0; documents.length * perDocument < chunks; document++) {
    const paragraphs: string[] = [];
    for (let paragraph = 0; paragraph < perDocument; paragraph++) {
      const length = 25 + Math.floor(random() * 50);
      paragraphs.push(`${Array.from({ length }, () => pick(words, random)).join(" ")}.`);
    }
    documents.push({ path: `docs/section-${String(document).padStart(3, "0")}.md`, text: paragraphs.join("\n\n"), format: "markdown", tags: [], meta: {} });
  }
  return {
    documents,
    queries: (count) => Array.from({ length: count }, () => Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(words, random)).join(" ")),
  };
}

function time<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

function best<T>(rounds: number, run: () => T): { value: T; ms: number } {
  let fastest: { value: T; ms: number } | undefined;
  for (let round = 0; round < rounds; round++) {
    const result = time(run);
    if (!fastest || result.ms < fastest.ms) fastest = result;
  }
  return fastest!;
}

export function benchRetrieval(): void {
  const chunkCount = Number(process.env.BENCH_CHUNKS ?? 10_000);
  const queryCount = Number(process.env.BENCH_QUERIES ?? 2000);
  const { documents, queries } = corpusOf(chunkCount);
  const indexed = best(3, () => new Corpus(documents, { chunking: { strategy: "paragraph" } }));
  const corpus = indexed.value;
  const tokenized = best(3, () => corpus.chunks.map((chunk) => tokenize(chunk.text)));
  const stemmed = best(3, () => new Corpus(documents, { chunking: { strategy: "paragraph" }, bm25: { stopwords: true, stemmer: "english" } }));
  const asked = queries(queryCount);
  const searched = best(3, () => asked.map((query) => corpus.search(query, { topK: 5 })));
  // Brute force: every chunk's terms scanned for every query (no postings), over the tokens made above.
  const termSets = tokenized.value.map((tokens) => new Set(tokens));
  const analyze = analyzer();
  const bruteQueries = asked.slice(0, Math.min(asked.length, 200));
  const brute = best(3, () => bruteQueries.map((query) => { const terms = analyze(query); let hits = 0; for (const set of termSets) if (terms.some((term) => set.has(term))) hits++; return hits; }));
  const tokens = tokenized.value.reduce((sum, list) => sum + list.length, 0);
  const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000).toLocaleString("en-US");
  const bruteMsPerQuery = brute.ms / bruteQueries.length;
  const queryMsPerQuery = searched.ms / asked.length;
  console.log(`retrieval: ${corpus.chunks.length.toLocaleString("en-US")} chunks, ${tokens.toLocaleString("en-US")} tokens, ${documents.length} documents (best of 3)`);
  console.log(`  index (chunk + ids + BM25)   ${indexed.ms.toFixed(0).padStart(6)} ms   ${perSecond(corpus.chunks.length, indexed.ms).padStart(9)} chunks/s   ${(indexed.ms / tokenized.ms).toFixed(1)}× the tokenize floor (${tokenized.ms.toFixed(0)} ms)`);
  console.log(`  index, stopwords + stemmer   ${stemmed.ms.toFixed(0).padStart(6)} ms   ${perSecond(corpus.chunks.length, stemmed.ms).padStart(9)} chunks/s`);
  console.log(`  query (top 5, ${asked.length} queries) ${searched.ms.toFixed(0).padStart(6)} ms   ${perSecond(asked.length, searched.ms).padStart(9)} queries/s   ${(queryMsPerQuery * 1000).toFixed(0)} µs each; ${(bruteMsPerQuery / queryMsPerQuery).toFixed(1)}× faster than a brute-force term scan (${(bruteMsPerQuery * 1000).toFixed(0)} µs each)`);
}
