/**
 * Just enough globbing for document lists (Node 20 has no fs.glob): `*` and `?` within one path
 * segment, `**` across segments. No braces, classes or negation; those characters match themselves.
 */

export function hasGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** Matches `/`-separated relative paths against `pattern`. */
export function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (pattern.startsWith("**/", index)) {
      source += "(?:[^/]*/)*";
      index += 2;
    } else if (pattern.startsWith("**", index)) {
      source += ".*";
      index += 1;
    } else if (char === "*") {
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else {
      source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`, "u");
}

/** The leading segments without wildcards: the folder a walk for `pattern` can start from. */
export function globBase(pattern: string): string {
  const segments = pattern.split("/");
  const firstGlob = segments.findIndex(hasGlob);
  const base = segments.slice(0, firstGlob === -1 ? segments.length : firstGlob).join("/");
  return base === "" && pattern.startsWith("/") ? "/" : base;
}
