/**
 * How a JavaScript eval file is imported, decided from its imports (and those of the local
 * modules it imports) before Node sees it:
 *
 * - natively, when every import of Retrace's own name resolves from where it is written — the
 *   project has Retrace installed, or nothing imports it;
 * - from a rewritten temp copy, when only the eval file itself imports a Retrace the project
 *   does not have: its imports are rewritten to the files Node would load (Retrace's to the
 *   running copy, relative ones to absolute URLs). Starting the module hooks costs ~20 ms on
 *   an idle core and several times that on a busy one, more than running a thousand cases. Only
 *   files the rewrite cannot change the meaning of qualify: no `import.meta` (it would be the
 *   copy's), no dynamic import of a computed specifier, no package import other than Retrace
 *   and Node's built-ins (those would resolve from the temp folder);
 * - through the module hooks otherwise (a helper module imports Retrace, say).
 *
 * The decision is made up front because Node keeps a module that failed to link: a helper
 * whose import of Retrace failed once fails again, hooks or not.
 */
import { existsSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { init, parse, type Import } from "es-module-lexer";
import { ownPackage } from "../../package-info.js";

const SELF = /^(retrace-agents|retrace)(\/.*)?$/;
const RELATIVE = /^\.{1,2}\//;
const JAVASCRIPT = /\.m?js$/;

export type ImportPlan = { kind: "native" } | { kind: "copy"; text: string } | { kind: "hooks" };

/**
 * The running Retrace's file for a `retrace-agents[/sub]` (or `retrace[/sub]`) import, as a
 * file: URL: the ESM face its package.json exports (require's resolution would give the
 * CommonJS face, whose names an ESM import cannot link to).
 */
export function ownModule(subpath: string): string | undefined {
  const { root, exports } = ownPackage();
  const target = exports[`.${subpath}`];
  const file = typeof target === "string" ? target : (target?.import ?? target?.default);
  return file === undefined ? undefined : pathToFileURL(join(root, file)).href;
}

/** Whether a node_modules folder above `dir` holds the package `name`. */
function installed(name: string, dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules", name, "package.json"))) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * A module's imports, or undefined when the lexer cannot read it. The lexer's memory grows to
 * the longest text it has read and never shrinks (17 MB kept for a 3 MB suite of 10,000
 * cases), so it reads only the text up to the line of the last "import" or "export": every
 * import (static, dynamic, re-export, import.meta) starts at or before it, and the lexer reads
 * left to right, so what it finds in that part is what it finds there in the whole text. A
 * statement the cut leaves unfinished makes it throw, and it reads further.
 */
export function imports(text: string): readonly Import[] | undefined {
  const last = Math.max(text.lastIndexOf("import"), text.lastIndexOf("export"));
  if (last === -1) return [];
  for (let end = lineEnd(text, last); ; end = lineEnd(text, 2 * end + 4096)) {
    const whole = end >= text.length;
    // `export *`, `export * as ns` and `export { a }` read as finished statements with their
    // `from` on a later line: the cut must not fall before a token that continues one.
    if (!whole && continues(text, end)) continue;
    try {
      const found = parse(whole ? text : text.slice(0, end))[0];
      if (whole || found.every((entry) => entry.importEnd < end)) return found;
    } catch {
      if (whole) return undefined;
    }
  }
}

/** Whether the first token at or after `at` (past spaces and comments) could continue a statement before it. */
function continues(text: string, at: number): boolean {
  const window = text.slice(at, at + 4096);
  const rest = CONTINUATION.exec(window);
  // Spaces or comments longer than the window, or a comment never closed: read further rather than guess.
  if (rest === null || (rest[0].length === window.length && at + window.length < text.length)) return true;
  return rest[1] !== undefined;
}

/** Spaces and comments, then either a token that continues a statement (captured) or anything else. */
const CONTINUATION = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:(from\b|as\b|[,{}*.(=]|with\b|assert\b)|[^\s/]|$|\/(?![/*]))/;

/** The index just past the line break at or after `from` (the text's length when none follows). */
function lineEnd(text: string, from: number): number {
  const at = text.indexOf("\n", from);
  return at === -1 ? text.length : at + 1;
}

/** Whether a module's imports of Retrace's name need help: the name is not installed above the module. */
function needsHelp(entries: readonly Import[], file: string): boolean {
  return entries.some((entry) => {
    const self = typeof entry.specifier === "string" ? SELF.exec(entry.specifier) : null;
    return self !== null && !installed(self[1] as string, dirname(file));
  });
}

/** The JavaScript modules `file` imports by relative path, transitively (not `file` itself). */
function localGraph(file: string, entries: readonly Import[]): Map<string, readonly Import[]> {
  const found = new Map<string, readonly Import[]>();
  const queue: [string, readonly Import[]][] = [[file, entries]];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, list] = next;
    for (const entry of list) {
      if (typeof entry.specifier !== "string" || !RELATIVE.test(entry.specifier)) continue;
      const target = fileURLToPath(new URL(entry.specifier, pathToFileURL(from)));
      if (target === file || found.has(target) || !JAVASCRIPT.test(target)) continue;
      let text: string;
      try {
        text = readFileSync(target, "utf8");
      } catch {
        continue; // Node reports it
      }
      const own = imports(text) ?? [];
      found.set(target, own);
      queue.push([target, own]);
    }
  }
  return found;
}

/** How to import the JavaScript eval file at `file` (its text `text`). */
export async function planImport(file: string, text: string): Promise<ImportPlan> {
  await init;
  const entries = imports(text);
  // Node reports a file the lexer cannot read better than we could.
  if (!entries) return { kind: "native" };
  const helpers = localGraph(file, entries);
  if ([...helpers].some(([helper, list]) => needsHelp(list, helper))) return { kind: "hooks" };
  if (!needsHelp(entries, file)) return { kind: "native" };
  const copy = rewritten(text, entries, pathToFileURL(file).href);
  return copy === undefined ? { kind: "hooks" } : { kind: "copy", text: copy };
}

/** `text` with its imports pointing where Node would take them from `url`, or undefined when the rewrite could change its meaning. */
function rewritten(text: string, entries: readonly Import[], url: string): string | undefined {
  const places: { start: number; end: number; target: string }[] = [];
  for (const entry of entries) {
    if (entry.type === "import-meta") return undefined;
    const specifier = entry.specifier;
    if (typeof specifier !== "string" || (entry.type === "dynamic" && entry.glob)) return undefined;
    let target: string | undefined;
    const self = SELF.exec(specifier);
    if (self) target = ownModule(self[2] ?? "");
    else if (RELATIVE.test(specifier)) target = new URL(specifier, url).href;
    else if (isBuiltin(specifier) || /^(?:file|data):|^\//.test(specifier)) continue;
    if (target === undefined) return undefined;
    // A static specifier's place excludes its quotes; a dynamic import's argument includes them.
    places.push(entry.type === "dynamic" ? { start: entry.start, end: entry.end, target } : { start: entry.start - 1, end: entry.end + 1, target });
  }
  places.sort((a, b) => a.start - b.start);
  let out = "";
  let last = 0;
  for (const place of places) {
    out += text.slice(last, place.start) + JSON.stringify(place.target);
    last = place.end;
  }
  return out + text.slice(last);
}
