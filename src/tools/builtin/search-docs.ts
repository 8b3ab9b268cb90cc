/** `search_docs`: BM25 retrieval over a fixed set of documents, recorded as a `retrieval` event. */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { RetrievedChunk } from "../../contracts/index.js";
import { defineTool, type Tool } from "../define.js";
import { Bm25Index, compareCodePoints } from "./bm25.js";
import { chunkDocument, DEFAULT_MAX_CHUNK_CHARS, type DocumentChunk } from "./chunks.js";
import { BuiltinToolError, FileToolError } from "../../errors/index.js";
import { globBase, globToRegExp, hasGlob } from "../../patterns/index.js";

/** A file path, a glob (`docs/*.md`, `docs/**\/*.md`), or a document given inline. */
export type DocumentSource = string | { source: string; text: string };

export interface SearchDocsOptions {
  documents: readonly DocumentSource[];
  /** Relative paths and globs resolve here, and chunk sources are named relative to it. Default: the current directory. */
  baseDir?: string;
  maxChunkChars?: number;
}

export const MAX_RESULTS = 20;

export const SearchDocsInput = z.object({
  query: z.string().min(1).describe("Words to look for."),
  k: z.number().int().min(1).max(MAX_RESULTS).default(3).describe("How many chunks to return."),
});
export type SearchDocsArgs = z.infer<typeof SearchDocsInput>;

export interface SearchDocsHit {
  id: string;
  source: string;
  text: string;
  score: number;
}
export interface SearchDocsResult {
  query: string;
  results: SearchDocsHit[];
}

interface Corpus {
  index: Bm25Index;
  chunks: Map<string, DocumentChunk>;
}

export function searchDocsTool(options: SearchDocsOptions): Tool<SearchDocsArgs, SearchDocsResult> {
  if (options.documents.length === 0) throw new BuiltinToolError("tool_config", "search_docs needs at least one document");
  // Read now, not per call: the tool must not change meaning if the process later changes directory.
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const maxChunkChars = options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  let corpus: Promise<Corpus> | undefined;
  const load = (): Promise<Corpus> => {
    corpus ??= buildCorpus(options.documents, baseDir, maxChunkChars).catch((error: unknown) => {
      // A failed load is not cached, so fixing the file is enough for the next call to work.
      corpus = undefined;
      throw error;
    });
    return corpus;
  };
  return defineTool({
    name: "search_docs",
    description: "Searches the project's documents by keywords and returns the best matching passages, best first.",
    input: SearchDocsInput,
    idempotent: true,
    readOnly: true,
    risk: "safe",
    async run({ query, k }, context) {
      const { index, chunks } = await load();
      const ranked: RetrievedChunk[] = index.search(query, k).map((hit, position) => {
        const chunk = chunks.get(hit.id)!;
        return { id: chunk.id, source: chunk.source, text: chunk.text, score: hit.score, rank: position + 1 };
      });
      context.recordRetrieval(query, ranked);
      return { query, results: ranked.map(({ id, source, text, score }) => ({ id, source, text, score })) };
    },
  });
}

async function buildCorpus(documents: readonly DocumentSource[], baseDir: string, maxChunkChars: number): Promise<Corpus> {
  const loaded = await loadDocuments(documents, baseDir);
  const chunks = new Map<string, DocumentChunk>();
  for (const { source, text } of loaded) {
    for (const chunk of chunkDocument(source, text, maxChunkChars)) chunks.set(chunk.id, chunk);
  }
  return { index: new Bm25Index([...chunks.values()]), chunks };
}

export async function loadDocuments(documents: readonly DocumentSource[], baseDir: string): Promise<{ source: string; text: string }[]> {
  const loaded: { source: string; text: string }[] = [];
  const seen = new Set<string>();
  const add = (source: string, text: string): void => {
    if (seen.has(source)) return;
    seen.add(source);
    loaded.push({ source, text });
  };
  for (const document of documents) {
    if (typeof document !== "string") {
      if (seen.has(document.source)) throw new BuiltinToolError("tool_config", `search_docs was given two documents named ${document.source}`);
      add(document.source, document.text);
      continue;
    }
    for (const file of hasGlob(document) ? await expandGlob(document, baseDir) : [path.resolve(baseDir, document)]) {
      const source = path.relative(baseDir, file).split(path.sep).join("/");
      if (!seen.has(source)) add(source, await readDocument(file, source));
    }
  }
  return loaded;
}

async function readDocument(file: string, source: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new FileToolError("file_not_found", `document ${source} does not exist`, file);
    throw error;
  }
}

/** Files matching `pattern`, sorted so that chunk order never depends on the file system. */
async function expandGlob(pattern: string, baseDir: string): Promise<string[]> {
  const posixPattern = pattern.split(path.sep).join("/");
  const base = globBase(posixPattern);
  const matcher = globToRegExp(posixPattern);
  const root = path.resolve(baseDir, base);
  let names: string[];
  try {
    names = await readdir(root, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") names = [];
    else throw error;
  }
  const files: string[] = [];
  for (const name of names.map((entry) => entry.split(path.sep).join("/")).sort(compareCodePoints)) {
    const candidate = base === "" ? name : `${base.replace(/\/$/, "")}/${name}`;
    if (matcher.test(candidate) && (await isFile(path.join(root, name)))) files.push(path.join(root, name));
  }
  if (files.length === 0) throw new FileToolError("file_not_found", `no document matches ${JSON.stringify(pattern)} in ${baseDir}`, pattern);
  return files;
}

async function isFile(file: string): Promise<boolean> {
  // A dangling symlink in the tree is not a document; it must not fail the whole load.
  return stat(file).then((stats) => stats.isFile(), () => false);
}
