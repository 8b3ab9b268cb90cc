/** `search_docs`: BM25 retrieval over the agent's documents, recorded as a `retrieval` event. */
import { z } from "zod";
import type { RetrievedChunk } from "../../contracts/index.js";
import { defineTool, type Tool } from "../define.js";
import { BuiltinToolError } from "../../errors/index.js";
import { MetadataFilterSchema, Retriever, type DocumentSource, type RetrieverOptions } from "../../retrieval/index.js";

export type { DocumentSource };

export interface SearchDocsOptions extends RetrieverOptions {
  /** Back-compatible shorthand for `chunking.maxChars`. */
  maxChunkChars?: number;
  /** Chunks scoring below this are not returned. */
  minScore?: number;
  /** Share an agent's retriever (and its index) instead of building one from these options. */
  retriever?: Retriever;
}

export const MAX_RESULTS = 20;

export const SearchDocsInput = z.object({
  query: z.string().min(1).describe("Words to look for."),
  k: z.number().int().min(1).max(MAX_RESULTS).default(3).describe("How many chunks to return."),
  filter: MetadataFilterSchema.optional().describe(
    'Only chunks whose document matches: "path" (a glob), "tags" (all listed), "title" (contains), or any front-matter field (equals).',
  ),
});
export type SearchDocsArgs = z.infer<typeof SearchDocsInput>;

/** A ranked chunk as the model sees it (the rank is its place in `results`). */
export type SearchDocsHit = Omit<RetrievedChunk, "rank">;
export interface SearchDocsResult {
  query: string;
  results: SearchDocsHit[];
}

export function searchDocsTool(options: SearchDocsOptions): Tool<SearchDocsArgs, SearchDocsResult> {
  if (!options.retriever && options.documents.length === 0) throw new BuiltinToolError("tool_config", "search_docs needs at least one document");
  const chunking = options.maxChunkChars !== undefined ? { ...options.chunking, maxChars: options.maxChunkChars } : options.chunking;
  const retriever = options.retriever ?? new Retriever({ ...options, ...(chunking ? { chunking } : {}) });
  return defineTool({
    name: "search_docs",
    description: "Searches the project's documents by keywords and returns the best matching passages, best first.",
    input: SearchDocsInput,
    idempotent: true,
    readOnly: true,
    risk: "safe",
    async run({ query, k, filter }, context) {
      const ranked: RetrievedChunk[] = await retriever.search(query, {
        topK: k,
        ...(options.minScore !== undefined ? { minScore: options.minScore } : {}),
        ...(filter ? { filter } : {}),
      });
      context.recordRetrieval(query, ranked);
      return { query, results: ranked.map(({ rank: _rank, ...hit }) => hit) };
    },
  });
}
