/**
 * Splits a document into retrievable chunks: one per markdown section (a heading and the text
 * up to the next heading), and a long section or headingless text into groups of blank-line
 * paragraphs. Ids are `<source>#<n>` from 1, so they stay the same while the text does.
 */

export interface DocumentChunk {
  id: string;
  source: string;
  text: string;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1500;

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function chunkDocument(source: string, text: string, maxChars = DEFAULT_MAX_CHUNK_CHARS): DocumentChunk[] {
  const pieces = sections(text.replace(/\r\n?/g, "\n")).flatMap((section) => packParagraphs(section, maxChars));
  return pieces.map((piece, index) => ({ id: `${source}#${index + 1}`, source, text: piece }));
}

/** Sections as lists of paragraphs; a fenced code block never splits, and `#` inside it is not a heading. */
function sections(text: string): string[][] {
  const result: string[][] = [];
  let paragraphs: string[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const endParagraph = (): void => {
    const paragraph = lines.join("\n").trim();
    if (paragraph) paragraphs.push(paragraph);
    lines = [];
  };
  const endSection = (): void => {
    endParagraph();
    if (paragraphs.length > 0) result.push(paragraphs);
    paragraphs = [];
  };
  for (const line of text.split("\n")) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else if (HEADING.test(line)) {
      endSection();
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
function packParagraphs(paragraphs: string[], maxChars: number): string[] {
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
