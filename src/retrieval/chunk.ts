/**
 * Documents into retrievable chunks. Four strategies:
 *
 * - `markdown` (default): one chunk per section (a heading and the text up to the next
 *   heading, the heading line included); a section longer than `maxChars` splits at blank
 *   lines, packing paragraphs while they fit. Plain text is one section.
 * - `paragraph`: one chunk per blank-line paragraph (heading lines are not paragraphs).
 * - `sentence`: one chunk per sentence (ends at `.`, `!`, `?`, `。`, `！`, `？` before a space or the end).
 * - `fixed`: windows of `size` characters, each starting `size − overlap` after the last; a
 *   window ends at the last whitespace in its second half, so words are rarely cut.
 *
 * Every chunk records the heading trail above it. A fenced code block never splits, and `#`
 * inside it is not a heading.
 *
 * Ids are `<path>#<n>:<hash>`: the document's workspace-relative path, the chunk's position
 * from 1, and the first 8 hex digits of the sha256 of path, position and text — the same on
 * every machine and run, and different as soon as the chunk's text changes.
 */
import { sha256 } from "../canonical/index.js";
import type { MetaValue, SourceDocument } from "./document.js";

export type ChunkStrategy = "markdown" | "paragraph" | "sentence" | "fixed";

export interface ChunkingOptions {
  strategy?: ChunkStrategy;
  /** markdown: the longest packed chunk, in characters (a longer paragraph stays whole). Default 1500. */
  maxChars?: number;
  /** fixed: window size in characters. Default 800. */
  size?: number;
  /** fixed: characters shared by consecutive windows. Default 100; must be below size. */
  overlap?: number;
}

export interface Chunk {
  id: string;
  /** The document's path. */
  source: string;
  /** From 1 within its document. */
  position: number;
  text: string;
  title?: string;
  /** Headings above the chunk, outermost first. */
  headings: readonly string[];
  tags: readonly string[];
  meta: Readonly<Record<string, MetaValue>>;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1500;
export const DEFAULT_FIXED_SIZE = 800;
export const DEFAULT_FIXED_OVERLAP = 100;

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Non-ASCII characters as escapes: the package's bundle is kept ASCII (scripts/bundle.mjs).
const SENTENCE_END = /(?<=[.!?\u3002\uff01\uff1f])["')\]\u2019\u201d]*\s+/u;

interface Section {
  headings: string[];
  /** The heading line itself, when the section has one: its first paragraph starts with it. */
  headingLine: string | undefined;
  paragraphs: string[];
}

/** The section's paragraphs with its heading line taken off the first (paragraph and sentence chunks hold body text only). */
function withoutHeading(section: Section): string[] {
  const [first, ...rest] = section.paragraphs;
  if (first === undefined || section.headingLine === undefined) return section.paragraphs;
  const body = first.slice(section.headingLine.trim().length).trim();
  return body ? [body, ...rest] : rest;
}

export function chunkId(path: string, position: number, text: string): string {
  return `${path}#${position}:${sha256(JSON.stringify([path, position, text])).slice(0, 8)}`;
}

/** The id without its content hash (`<path>#<n>`), which judgements may use. */
export function chunkAddress(id: string): string {
  const colon = id.lastIndexOf(":");
  return colon > id.lastIndexOf("#") ? id.slice(0, colon) : id;
}

export function chunkDocument(document: SourceDocument, options: ChunkingOptions = {}): Chunk[] {
  const text = document.text.replace(/\r\n?/g, "\n");
  const strategy = options.strategy ?? "markdown";
  const pieces: { text: string; headings: readonly string[] }[] = [];
  if (strategy === "fixed") {
    const size = options.size ?? DEFAULT_FIXED_SIZE;
    const overlap = options.overlap ?? DEFAULT_FIXED_OVERLAP;
    for (const window of fixedWindows(text, size, overlap)) pieces.push({ text: window, headings: [] });
  } else {
    for (const section of sections(text, document.format === "markdown")) {
      const headings = section.headings;
      if (strategy === "markdown") {
        for (const packed of packParagraphs(section.paragraphs, options.maxChars ?? DEFAULT_MAX_CHUNK_CHARS)) pieces.push({ text: packed, headings });
        continue;
      }
      for (const paragraph of withoutHeading(section)) {
        if (strategy === "paragraph") pieces.push({ text: paragraph, headings });
        else for (const sentence of sentences(paragraph)) pieces.push({ text: sentence, headings });
      }
    }
  }
  return pieces.map((piece, index) => ({
    id: chunkId(document.path, index + 1, piece.text),
    source: document.path,
    position: index + 1,
    text: piece.text,
    ...(document.title !== undefined ? { title: document.title } : {}),
    headings: piece.headings,
    tags: document.tags,
    meta: document.meta,
  }));
}

function sections(text: string, markdown: boolean): Section[] {
  const result: Section[] = [];
  const trail: { level: number; text: string }[] = [];
  let current: Section = { headings: [], headingLine: undefined, paragraphs: [] };
  let lines: string[] = [];
  let fence: string | undefined;
  const endParagraph = (): void => {
    const paragraph = lines.join("\n").trim();
    if (paragraph) current.paragraphs.push(paragraph);
    lines = [];
  };
  const endSection = (): void => {
    endParagraph();
    if (current.paragraphs.length > 0) result.push(current);
  };
  for (const line of text.split("\n")) {
    const marker = markdown ? FENCE.exec(line)?.[1] : undefined;
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else if (markdown && HEADING.test(line)) {
      endSection();
      const [, hashes, title] = HEADING.exec(line)!;
      const level = hashes!.length;
      while (trail.length > 0 && trail[trail.length - 1]!.level >= level) trail.pop();
      trail.push({ level, text: (title ?? "").trim() });
      current = { headings: trail.map((entry) => entry.text), headingLine: line, paragraphs: [] };
    } else if (line.trim() === "") {
      endParagraph();
      continue;
    }
    lines.push(line);
  }
  endSection();
  return result;
}

/** Greedily joins paragraphs while they fit; a single paragraph longer than `maxChars` stays whole. */
function packParagraphs(paragraphs: readonly string[], maxChars: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const paragraph of paragraphs) {
    if (current && current.length + 2 + paragraph.length > maxChars) {
      pieces.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph;
  }
  if (current) pieces.push(current);
  return pieces;
}

export function sentences(paragraph: string): string[] {
  return paragraph
    .split(SENTENCE_END)
    .map((sentence) => sentence.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

function fixedWindows(text: string, size: number, overlap: number): string[] {
  if (!(Number.isInteger(size) && size > 0)) throw new RangeError(`fixed chunks need a size > 0, got ${size}`);
  if (!(Number.isInteger(overlap) && overlap >= 0 && overlap < size)) throw new RangeError(`fixed chunk overlap must be 0 to size − 1 (${size - 1}), got ${overlap}`);
  const windows: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const cut = text.lastIndexOf(" ", end) > start + size / 2 ? text.lastIndexOf(" ", end) : -1;
      const newline = text.lastIndexOf("\n", end);
      const best = Math.max(cut, newline > start + size / 2 ? newline : -1);
      if (best > 0) end = best;
    }
    const window = text.slice(start, end).trim();
    if (window) windows.push(window);
    if (end >= text.length) break;
    start = Math.max(start + 1, end - overlap);
  }
  return windows;
}
