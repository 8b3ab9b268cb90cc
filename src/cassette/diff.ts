/**
 * What differs between a missed request and a recorded one, as lines a person reads: the JSON
 * path, then the change. A changed string shows the words that changed with a little context
 * (`"You are a [-helpful-]{+cheerful+} assistant"`), an added array element or key shows the
 * value, briefly.
 */
import type { CanonicalRequest } from "./format.js";

const MAX_LINES = 12;
const BRIEF = 120;
const CONTEXT_WORDS = 4;

export function requestDifferences(recorded: CanonicalRequest, missed: CanonicalRequest): string[] {
  const lines: string[] = [];
  if (recorded.method !== missed.method) lines.push(`method: ${recorded.method} → ${missed.method}`);
  if (recorded.url !== missed.url) lines.push(`url: ${recorded.url} → ${missed.url}`);
  walk("headers", recorded.headers, missed.headers, lines);
  walk("body", recorded.body ? unwrap(recorded.body) : undefined, missed.body ? unwrap(missed.body) : undefined, lines);
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`] : lines;
}

/** How many leaves differ: the nearest recorded request is the one with the fewest. */
export function distance(recorded: CanonicalRequest, missed: CanonicalRequest): number {
  const lines: string[] = [];
  walk("", { h: recorded.headers, b: recorded.body ? unwrap(recorded.body) : null, u: recorded.url }, { h: missed.headers, b: missed.body ? unwrap(missed.body) : null, u: missed.url }, lines);
  return lines.length;
}

function unwrap(body: NonNullable<CanonicalRequest["body"]>): unknown {
  return "json" in body ? body.json : "text" in body ? body.text : `<${body.base64.length} base64 characters>`;
}

function walk(path: string, before: unknown, after: unknown, lines: string[]): void {
  if (before === after) return;
  if (before === undefined) return void lines.push(`${path}: added ${brief(after)}`);
  if (after === undefined) return void lines.push(`${path}: removed (was ${brief(before)})`);
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let index = 0; index < common; index++) walk(`${path}[${index}]`, before[index], after[index], lines);
    for (let index = common; index < after.length; index++) lines.push(`${path}[${index}]: added ${brief(after[index])}`);
    for (let index = common; index < before.length; index++) lines.push(`${path}[${index}]: removed (was ${brief(before[index])})`);
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(path ? `${path}.${key}` : key, before[key], after[key], lines);
    return;
  }
  if (typeof before === "string" && typeof after === "string") return void lines.push(`${path}: ${wordDiff(before, after)}`);
  lines.push(`${path}: ${brief(before)} → ${brief(after)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > BRIEF ? `${text.slice(0, BRIEF - 1)}…` : text;
}

/** The changed words of two texts, between their common beginning and end, with some context. */
export function wordDiff(before: string, after: string): string {
  const a = before.split(/(\s+)/);
  const b = after.split(/(\s+)/);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const contextBefore = a.slice(Math.max(0, start - CONTEXT_WORDS * 2), start).join("");
  const contextAfter = a.slice(a.length - end, a.length - end + CONTEXT_WORDS * 2).join("");
  const removed = a.slice(start, a.length - end).join("");
  const added = b.slice(start, b.length - end).join("");
  const lead = start > CONTEXT_WORDS * 2 ? "…" : "";
  const tail = end > CONTEXT_WORDS * 2 ? "…" : "";
  const change = `${removed ? `[-${clip(removed)}-]` : ""}${added ? `{+${clip(added)}+}` : ""}`;
  return `"${lead}${contextBefore}${change}${contextAfter}${tail}"`;
}

function clip(text: string): string {
  return text.length > BRIEF ? `${text.slice(0, BRIEF - 1)}…` : text;
}
