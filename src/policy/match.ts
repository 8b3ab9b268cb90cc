import { posix } from "node:path";
import { globToRegExp } from "../patterns/index.js";

const cache = new Map<string, RegExp>();

function compiled(glob: string): RegExp {
  let regex = cache.get(glob);
  // Stryker disable next-line ConditionalExpression: equivalent, compiling again gives an equal RegExp (no g or y flag, so no lastIndex state); the cache only saves time
  if (!regex) {
    regex = globToRegExp(glob);
    cache.set(glob, regex);
  }
  return regex;
}

export function globMatches(glob: string, text: string): boolean {
  return compiled(glob).test(text);
}

/**
 * The forms a string argument may take for matching. Paths are compared after normalising
 * (`./a//b/../c` is `a/c`), so spelling a path differently cannot slip past a rule; a value
 * that climbs out (`../x`, `a/../../x`) is flagged, since no glob should vouch for it.
 */
function normalised(value: string): { text: string; escapes: boolean } {
  const text = posix.normalize(value.replace(/\\/g, "/")).replace(/^\.\//, "");
  return { text, escapes: text === ".." || text.startsWith("../") };
}

/**
 * Every pattern must hold: a string pattern is a glob over a string argument (paths keep their
 * `/` structure, so `**\/.env` matches `.env` and `a/b/.env`); other values must be equal.
 * A pattern that names a missing argument does not match.
 *
 * `purpose` decides the doubtful cases: for a rule that restricts (`deny`, `require_approval`)
 * a path that escapes upward matches, so it is restricted too; for one that permits (`allow`,
 * `trust`) it never matches.
 */
export function argsMatch(
  patterns: Readonly<Record<string, unknown>> | undefined,
  args: unknown,
  purpose: "restrict" | "permit",
): boolean {
  if (!patterns) return true;
  const record = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  for (const [name, pattern] of Object.entries(patterns)) {
    // Stryker disable next-line ConditionalExpression: equivalent, a missing argument reads as undefined, which no pattern (a string, number, boolean or null) accepts below
    if (!(name in record)) return false;
    const value = record[name];
    if (typeof pattern !== "string") {
      if (value !== pattern) return false;
      continue;
    }
    if (typeof value !== "string") return false;
    const { text, escapes } = normalised(value);
    if (escapes) {
      if (purpose === "permit") return false;
      continue;
    }
    if (!globMatches(pattern, text) && !(purpose === "restrict" && globMatches(pattern, value))) return false;
  }
  return true;
}
