/**
 * Reads the documents a config names — files, globs, or inline text — into SourceDocuments.
 * The one effectful part of retrieval: everything after this is a function of the text.
 * Paths are named relative to `baseDir` with `/` separators, and globs expand in code-point
 * order, so chunk ids and order never depend on the machine or its file system.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { DocumentError, FileToolError } from "../errors/index.js";
import { globBase, globToRegExp, hasGlob } from "../patterns/index.js";
import { compareCodePoints } from "./bm25.js";
import { formatOf, markdownTitle, metadataOf, splitFrontMatter, type DocumentFormat, type SourceDocument } from "./document.js";

export interface DocumentSpec {
  /** A file or glob (`docs/*.md`, `docs/**\/*.md`), relative to baseDir. */
  path: string;
  /** Default: from the extension (.md Markdown, .jsonl JSON Lines, anything else text). */
  format?: DocumentFormat;
  /** JSON Lines: the field holding the text. Default "text". */
  textField?: string;
  /** JSON Lines: the field holding the title. Default "title". */
  titleField?: string;
  /** JSON Lines: the field naming the record (its path is `<file>:<id>`; without it `<file>:<line>`). Default "id". */
  idField?: string;
  /** Tags added to every document this entry loads. */
  tags?: readonly string[];
}

/** A file path or glob, a spec, or a document given inline. */
export type DocumentSource = string | DocumentSpec | { source: string; text: string };

export async function loadDocuments(sources: readonly DocumentSource[], baseDir: string): Promise<SourceDocument[]> {
  const loaded: SourceDocument[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    if (typeof source !== "string" && "text" in source) {
      if (seen.has(source.source)) throw new DocumentError(`two documents are named ${source.source}`, { file: source.source });
      seen.add(source.source);
      loaded.push(...parseDocument(source.source, source.text, { path: source.source }));
      continue;
    }
    const spec: DocumentSpec = typeof source === "string" ? { path: source } : source;
    for (const file of hasGlob(spec.path) ? await expandGlob(spec.path, baseDir) : [path.resolve(baseDir, spec.path)]) {
      const name = path.relative(baseDir, file).split(path.sep).join("/");
      if (seen.has(name)) continue;
      seen.add(name);
      loaded.push(...parseDocument(name, await readDocument(file, name), spec));
    }
  }
  return loaded;
}

/** One file's documents: one, or one per JSON Lines record. */
export function parseDocument(name: string, text: string, spec: DocumentSpec): SourceDocument[] {
  const format = spec.format ?? formatOf(name);
  const extraTags = spec.tags ?? [];
  if (format === "jsonl") return jsonLines(name, text, spec, extraTags);
  const { frontMatter, body } = format === "markdown" ? splitFrontMatter(text) : { frontMatter: undefined, body: text };
  let fields: Record<string, unknown> = {};
  if (frontMatter !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseYaml(frontMatter);
    } catch (error) {
      throw new DocumentError(`front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`, { file: name });
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) throw new DocumentError("front matter must be a mapping (key: value lines)", { file: name });
      fields = parsed as Record<string, unknown>;
    }
  }
  const metadata = metadataOf(fields);
  const title = metadata.title ?? (format === "markdown" ? markdownTitle(body) : undefined);
  return [{ path: name, text: body, format, ...(title !== undefined ? { title } : {}), tags: withTags(metadata.tags, extraTags), meta: metadata.meta }];
}

function jsonLines(name: string, text: string, spec: DocumentSpec, extraTags: readonly string[]): SourceDocument[] {
  const textField = spec.textField ?? "text";
  const titleField = spec.titleField ?? "title";
  const idField = spec.idField ?? "id";
  const documents: SourceDocument[] = [];
  const names = new Set<string>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    const place = { file: name, entry: `line ${index + 1}` };
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new DocumentError(`not valid JSON: ${(error as Error).message}`, place);
    }
    if (record === null || typeof record !== "object" || Array.isArray(record)) throw new DocumentError("a JSON Lines record must be an object", place);
    const fields = record as Record<string, unknown>;
    const body = fields[textField];
    if (typeof body !== "string") throw new DocumentError(`the record has no string field "${textField}" (set text_field to the field holding its text)`, place);
    const title = fields[titleField];
    const id = fields[idField];
    const recordName = `${name}:${typeof id === "string" || typeof id === "number" ? String(id) : index + 1}`;
    if (names.has(recordName)) throw new DocumentError(`two records are named ${recordName} (their "${idField}" fields are equal)`, place);
    names.add(recordName);
    const metadata = metadataOf(fields, [textField, titleField, idField]);
    documents.push({
      path: recordName,
      text: body,
      format: "text",
      ...(typeof title === "string" ? { title } : {}),
      tags: withTags(metadata.tags, extraTags),
      meta: metadata.meta,
    });
  });
  return documents;
}

function withTags(own: readonly string[], extra: readonly string[]): string[] {
  return [...new Set([...own, ...extra])];
}

async function readDocument(file: string, name: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new FileToolError("file_not_found", `document ${name} does not exist`, file);
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
