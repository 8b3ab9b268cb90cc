import { posix } from "node:path";
type Token = { kind: "char"; char: string } | { kind: "one" } | { kind: "star" } | { kind: "any" } | { kind: "segments" };

/** The glob syntax of `patterns/globToRegExp`: `*` and `?` within a segment, `**` across them, `**\/` for whole segments. */
function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  const chars = [...glob];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] as string;
    if (char === "*" && chars[index + 1] === "*") {
      const segments = chars[index + 2] === "/";
      tokens.push({ kind: segments ? "segments" : "any" });
      index += segments ? 2 : 1;
    } else if (char === "*") tokens.push({ kind: "star" });
    else if (char === "?") tokens.push({ kind: "one" });
    else tokens.push({ kind: "char", char });
  }
  return tokens;
}

const cache = new Map<string, Token[]>();

/**
 * Whether a glob matches the whole text. Simulated over the pattern's positions rather than
 * compiled to a backtracking RegExp: `*a*a*a*b` against a long argument a model sent would
 * take polynomial time to fail there, and here it costs text length × pattern length.
 */
export function globMatches(glob: string, text: string): boolean {
  let tokens = cache.get(glob);
  if (!tokens) {
    tokens = tokenize(glob);
    cache.set(glob, tokens);
  }
  const end = tokens.length;
  // State 2p: before token p; 2p+1: inside a segment of a `**/` token p (it may not end there).
  const closure = (states: Set<number>): Set<number> => {
    const stack = [...states];
    while (stack.length) {
      const state = stack.pop() as number;
      if (state % 2 === 1) continue;
      const token = tokens[state / 2];
      if (token && token.kind !== "char" && token.kind !== "one" && !states.has(state + 2)) {
        states.add(state + 2);
        stack.push(state + 2);
      }
    }
    return states;
  };
  let current = closure(new Set([0]));
  for (const char of text) {
    const next = new Set<number>();
    for (const state of current) {
      const position = Math.floor(state / 2);
      const token = tokens[position];
      if (!token) continue;
      if (state % 2 === 1 || token.kind === "segments") {
        next.add(char === "/" ? position * 2 : position * 2 + 1);
      } else if (token.kind === "char") {
        if (char === token.char) next.add(state + 2);
      } else if (token.kind === "one") {
        if (char !== "/") next.add(state + 2);
      } else if (token.kind === "star") {
        if (char !== "/") next.add(state);
      } else next.add(state);
    }
    if (next.size === 0) return false;
    current = closure(next);
  }
  return current.has(end * 2);
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

/** Which arguments of a tool name files, and the folder relative ones are resolved against. */
export interface PathArguments {
  pathArgs?: readonly string[];
  /** Absolute folder of the tool (a workspace); without it an absolute path is compared as written. */
  pathRoot?: string;
}

const slashed = (text: string) => text.replace(/\\/g, "/");

/**
 * A declared path argument as policy sees it: relative to the tool's folder, `/`-separated,
 * without `.`, `..`, doubled or trailing slashes, so that `<root>/config/x`, `./config/x`,
 * `config//x` and `a/../config/x` are all `config/x`. `escapes` when it names something
 * outside the folder (`../x`, an absolute path elsewhere). Lexical only: policy matching
 * never touches the file system, and the tool itself refuses a symlink that leads out.
 */
export function relativePath(value: string, root: string | undefined): { text: string; escapes: boolean } {
  const path = slashed(value);
  if (path.includes("\0")) return { text: path, escapes: true };
  let text = posix.normalize(path);
  if (posix.isAbsolute(text) && root !== undefined) {
    const base = posix.normalize(slashed(root)).replace(/\/+$/, "");
    if (text === base || text === `${base}/`) text = ".";
    else if (text.startsWith(`${base}/`)) text = text.slice(base.length + 1);
    else return { text, escapes: true };
  }
  text = text.replace(/^(\.\/)+/, "");
  if (text.length > 1) text = text.replace(/\/+$/, "");
  return { text: text === "" ? "." : text, escapes: text === ".." || text.startsWith("../") };
}

/**
 * Every pattern must hold: a string pattern is a glob over a string argument (paths keep their
 * `/` structure, so `**\/.env` matches `.env` and `a/b/.env`); other values must be equal.
 * A pattern that names a missing argument does not match.
 *
 * Arguments the tool declares as paths are compared in their folder-relative form (see
 * `relativePath`); others are normalised as paths too, but as written.
 *
 * `purpose` decides the doubtful cases: for a rule that restricts (`deny`, `require_approval`)
 * a path that escapes upward matches, so it is restricted too; for one that permits (`allow`,
 * `trust`) it never matches.
 */
export function argsMatch(
  patterns: Readonly<Record<string, unknown>> | undefined,
  args: unknown,
  purpose: "restrict" | "permit",
  paths: PathArguments = {},
): boolean {
  if (!patterns) return true;
  const record = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  for (const [name, pattern] of Object.entries(patterns)) {
    if (!(name in record)) return false;
    const value = record[name];
    if (typeof pattern !== "string") {
      if (value !== pattern) return false;
      continue;
    }
    if (typeof value !== "string") return false;
    if (paths.pathArgs?.includes(name)) {
      const path = relativePath(value, paths.pathRoot);
      if (path.escapes) {
        if (purpose === "permit") return false;
        continue;
      }
      // The pattern is read the same way, so `./config/**` or `<root>/config/**` mean `config/**`.
      const glob = relativePath(pattern, paths.pathRoot);
      if (glob.escapes || !globMatches(glob.text, path.text)) return false;
      continue;
    }
    const { text, escapes } = normalised(value);
    if (escapes) {
      if (purpose === "permit") return false;
      continue;
    }
    if (!globMatches(pattern, text) && !(purpose === "restrict" && globMatches(pattern, value))) return false;
  }
  return true;
}
