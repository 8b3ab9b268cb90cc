/**
 * A searchable corpus: documents chunked once and indexed once (per agent, never per call).
 * `search` gives the ranked chunks exactly as a `retrieval` event records them.
 */
import type { RetrievedChunk } from "../contracts/index.js";
import { Bm25Index } from "./bm25.js";
import { chunkDocument, type Chunk, type ChunkingOptions } from "./chunk.js";
import type { SourceDocument } from "./document.js";
import { compileFilter, type MetadataFilter } from "./filter.js";
import { analyzer, type AnalyzerOptions } from "./tokenize.js";

export interface CorpusOptions {
  chunking?: ChunkingOptions;
  bm25?: { k1?: number; b?: number } & AnalyzerOptions;
}

export interface SearchOptions {
  topK: number;
  minScore?: number;
  filter?: MetadataFilter;
}

export class Corpus {
  readonly chunks: readonly Chunk[];
  readonly index: Bm25Index;
  readonly #byId = new Map<string, Chunk>();

  constructor(documents: readonly SourceDocument[], options: CorpusOptions = {}) {
    const chunks: Chunk[] = [];
    for (const document of documents) {
      for (const chunk of chunkDocument(document, options.chunking)) {
        // Two documents with one path would make ids ambiguous; the loader never gives them.
        if (this.#byId.has(chunk.id)) throw new RangeError(`two chunks have the id ${chunk.id} (is a document listed twice under one path?)`);
        this.#byId.set(chunk.id, chunk);
        chunks.push(chunk);
      }
    }
    this.chunks = chunks;
    const { k1, b, ...analysis } = options.bm25 ?? {};
    this.index = new Bm25Index(chunks, { ...(k1 !== undefined ? { k1 } : {}), ...(b !== undefined ? { b } : {}), analyze: analyzer(analysis) });
  }

  chunk(id: string): Chunk | undefined {
    return this.#byId.get(id);
  }

  search(query: string, options: SearchOptions): RetrievedChunk[] {
    const test = compileFilter(options.filter);
    const hits = this.index.search(query, options.topK, {
      ...(options.minScore !== undefined ? { minScore: options.minScore } : {}),
      ...(test ? { accept: (id: string) => test(this.#byId.get(id)!) } : {}),
    });
    return hits.map((hit, position) => {
      const chunk = this.#byId.get(hit.id)!;
      return {
        id: chunk.id,
        source: chunk.source,
        text: chunk.text,
        score: hit.score,
        rank: position + 1,
        ...(chunk.title !== undefined ? { title: chunk.title } : {}),
        ...(chunk.headings.length > 0 ? { headings: [...chunk.headings] } : {}),
      };
    });
  }
}
