/** Retrieval: documents, chunking, BM25 ranking and metadata filters; see docs/retrieval.md. */
export { tokenize, analyzer, stemEnglish, ENGLISH_STOPWORDS, type Analyzer, type AnalyzerOptions } from "./tokenize.js";
export { Bm25Index, roundScore, compareCodePoints, SCORE_DECIMALS, DEFAULT_K1, DEFAULT_B, type Bm25Document, type Bm25Hit, type Bm25Options } from "./bm25.js";
export {
  chunkDocument,
  chunkId,
  chunkAddress,
  sentences,
  DEFAULT_MAX_CHUNK_CHARS,
  DEFAULT_FIXED_SIZE,
  DEFAULT_FIXED_OVERLAP,
  type Chunk,
  type ChunkStrategy,
  type ChunkingOptions,
} from "./chunk.js";
export { splitFrontMatter, markdownTitle, formatOf, type SourceDocument, type DocumentFormat, type MetaValue } from "./document.js";
export { compileFilter, mergeFilters, MetadataFilterSchema, type MetadataFilter } from "./filter.js";
export { Corpus, type CorpusOptions, type SearchOptions } from "./corpus.js";
export { loadDocuments, parseDocument, type DocumentSource, type DocumentSpec } from "./load.js";
export { Retriever, type RetrieverOptions, type RetrieveOptions } from "./retriever.js";
