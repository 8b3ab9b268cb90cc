import { globToRegExp } from "../patterns/index.js";

const cache = new Map<string, RegExp>();

function compiled(glob: string): RegExp {
  let regex = cache.get(glob);
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
 * Every pattern must hold: a string pattern is a glob over a string argument (paths keep their
 * `/` structure, so `**\/.env` matches `.env` and `a/b/.env`); other values must be equal.
 * A pattern that names a missing argument does not match.
 */
export function argsMatch(patterns: Readonly<Record<string, unknown>> | undefined, args: unknown): boolean {
  if (!patterns) return true;
  const record = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  for (const [name, pattern] of Object.entries(patterns)) {
    if (!(name in record)) return false;
    const value = record[name];
    if (typeof pattern === "string") {
      if (typeof value !== "string" || !globMatches(pattern, value)) return false;
    } else if (value !== pattern) return false;
  }
  return true;
}
