/**
 * Readable differences between two recorded values (a model request, an event): each changed
 * place with its path, and for text the changed words with a little context either side, so
 * one changed word of a long system prompt shows as that word.
 */
export interface Change {
  path: string;
  expected: unknown;
  actual: unknown;
  /** For two strings: the words that changed, e.g. `You are a [-careful-]{+reckless+} assistant`. */
  words?: string;
}

const MISSING = Symbol("missing");

export function structuralDiff(expected: unknown, actual: unknown, max = 20): Change[] {
  const changes: Change[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (changes.length >= max) return;
    if (Object.is(a, b)) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let index = 0; index < Math.max(a.length, b.length); index++) {
        walk(index < a.length ? a[index] : MISSING, index < b.length ? b[index] : MISSING, `${path}[${index}]`);
      }
      return;
    }
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const key of keys) walk(Object.hasOwn(a, key) ? a[key] : MISSING, Object.hasOwn(b, key) ? b[key] : MISSING, path ? `${path}.${key}` : key);
      return;
    }
    const change: Change = { path: path || "(value)", expected: a === MISSING ? undefined : a, actual: b === MISSING ? undefined : b };
    if (typeof a === "string" && typeof b === "string" && /\s/.test(a + b)) change.words = wordDiff(a, b);
    changes.push(change);
  };
  walk(expected, actual, "");
  return changes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const CONTEXT_WORDS = 4;

/** Words, runs of white space and single punctuation marks, so "up." and "up carefully." share "up" and ".". */
function tokens(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** The changed run of words between the longest common prefix and suffix, with context. */
export function wordDiff(expected: string, actual: string): string {
  const a = tokens(expected);
  const b = tokens(actual);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const before = a.slice(Math.max(0, start - CONTEXT_WORDS * 2), start).join("");
  const after = a.slice(endA, endA + CONTEXT_WORDS * 2).join("");
  const removed = a.slice(start, endA).join("");
  const added = b.slice(start, endB).join("");
  const lead = start - CONTEXT_WORDS * 2 > 0 ? "…" : "";
  const tail = endA + CONTEXT_WORDS * 2 < a.length ? "…" : "";
  return `${lead}${before}${removed ? `[-${removed}-]` : ""}${added ? `{+${added}+}` : ""}${after}${tail}`;
}

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** One line per change: `path: expected → actual`, or the word diff for text. */
export function describeChanges(changes: readonly Change[]): string[] {
  return changes.map((change) => (change.words !== undefined ? `${change.path}: ${change.words}` : `${change.path}: ${show(change.expected)} → ${show(change.actual)}`));
}
