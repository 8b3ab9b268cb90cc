/**
 * A document as retrieval sees it: its workspace-relative path (always with `/`), its text
 * and the metadata filters read. Pure: the loader (load.ts) reads files and parses front
 * matter; everything here is a function of the text.
 */

export type MetaValue = string | number | boolean;

export type DocumentFormat = "markdown" | "text" | "jsonl";

export interface SourceDocument {
  /** Workspace-relative with `/` separators; a JSON Lines record adds `:<id>` (or `:<line>`). */
  path: string;
  text: string;
  format: DocumentFormat;
  title?: string;
  tags: readonly string[];
  /** Scalar front-matter fields (or record fields), for filters. */
  meta: Readonly<Record<string, MetaValue>>;
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** The YAML block between leading `---` lines, and the text after it. */
export function splitFrontMatter(text: string): { frontMatter: string | undefined; body: string } {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { frontMatter: undefined, body: text };
  return { frontMatter: match[1]!, body: text.slice(match[0].length) };
}

/** A Markdown document's title: front matter's `title`, else its first `# ` heading. */
export function markdownTitle(body: string): string | undefined {
  for (const line of body.replace(/\r\n?/g, "\n").split("\n")) {
    const match = /^ {0,3}#[ \t]+(.+?)[ \t#]*$/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Metadata from a parsed front-matter object (or a JSON Lines record): `title`, `tags` (a list
 * or a comma-separated string) and every other scalar field.
 */
export function metadataOf(fields: Readonly<Record<string, unknown>>, skip: readonly string[] = []): Pick<SourceDocument, "tags" | "meta"> & { title?: string } {
  const meta: Record<string, MetaValue> = {};
  let title: string | undefined;
  let tags: string[] = [];
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key];
    if (skip.includes(key)) continue;
    if (key === "title" && typeof value === "string") title = value;
    else if (key === "tags") tags = tagList(value);
    else if (typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) meta[key] = value;
  }
  return { ...(title !== undefined ? { title } : {}), tags, meta };
}

function tagList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return [...new Set(raw.filter((tag): tag is string | number => typeof tag === "string" || typeof tag === "number").map((tag) => String(tag).trim()).filter(Boolean))];
}

/** The format a path implies: `.md`/`.markdown`/`.mdx` Markdown, `.jsonl`/`.ndjson` JSON Lines, anything else plain text. */
export function formatOf(path: string): DocumentFormat {
  const lower = path.toLowerCase();
  if (/\.(md|markdown|mdx)$/.test(lower)) return "markdown";
  if (/\.(jsonl|ndjson)$/.test(lower)) return "jsonl";
  return "text";
}
