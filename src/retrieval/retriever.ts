/**
 * One agent's retrieval: where its documents are, how they are chunked and scored, and the
 * corpus built from them — loaded on first use and then kept, so the agent indexes once
 * however many searches and turns it makes (`search_docs` and augmentation share it).
 */
import path from "node:path";
import type { RetrievedChunk } from "../contracts/index.js";
import { Corpus, type CorpusOptions } from "./corpus.js";
import { mergeFilters, type MetadataFilter } from "./filter.js";
import { loadDocuments, type DocumentSource } from "./load.js";

export interface RetrieverOptions extends CorpusOptions {
  documents: readonly DocumentSource[];
  /** Relative paths and globs resolve here, and document paths are named relative to it. Default: the current directory. */
  baseDir?: string;
  /** A filter every search of this retriever applies (a call's own filter narrows it further). */
  filter?: MetadataFilter;
}

export interface RetrieveOptions {
  topK: number;
  minScore?: number;
  filter?: MetadataFilter;
}

export class Retriever {
  readonly options: RetrieverOptions;
  readonly baseDir: string;
  #corpus: Promise<Corpus> | undefined;

  constructor(options: RetrieverOptions) {
    this.options = options;
    // Resolved now, not per call: retrieval must not change meaning if the process later changes directory.
    this.baseDir = path.resolve(options.baseDir ?? process.cwd());
  }

  corpus(): Promise<Corpus> {
    this.#corpus ??= loadDocuments(this.options.documents, this.baseDir)
      .then((documents) => new Corpus(documents, this.options))
      .catch((error: unknown) => {
        // A failed load is not cached, so fixing the file is enough for the next search to work.
        this.#corpus = undefined;
        throw error;
      });
    return this.#corpus;
  }

  async search(query: string, options: RetrieveOptions): Promise<RetrievedChunk[]> {
    const corpus = await this.corpus();
    const filter = mergeFilters(this.options.filter, options.filter);
    return corpus.search(query, { topK: options.topK, ...(options.minScore !== undefined ? { minScore: options.minScore } : {}), ...(filter ? { filter } : {}) });
  }
}
