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
 * - as a script, when it imports nothing but the running Retrace and Node's built-ins,
 *   statically, and exports nothing: its compiled code is then kept between runs
 *   (script-plan.ts, script-load.ts);
 * - a TypeScript file whose relative imports are helpers a copy can take, with the helpers
 *   compiled into copies of the process's (local-typescript.ts), unless another file needs the
 *   hooks;
 * - through the module hooks otherwise (a helper module imports Retrace, say).
 *
 * The decision is made up front because Node keeps a module that failed to link: a helper
 * whose import of Retrace failed once fails again, hooks or not.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { init, parse, type Import, type StaticImport } from "es-module-lexer";
import { scriptPlan, type ScriptPlan } from "./script-plan.js";
import { ownPackage } from "../../package-info.js";
import { localTargets, type Planner } from "./local-typescript.js";
import type { ColumnShift } from "./source-maps.js";

const SELF = /^(retrace-agents|retrace)(\/.*)?$/;
const RELATIVE = /^\.{1,2}\//;
const JAVASCRIPT = /\.m?js$/;

/**
 * `copy`: the rewritten text; `own`, each import of Retrace's name it rewrote, as the running
 * copy's URL and the specifier the file wrote (so that messages say what the file said);
 * `helpers`, when it imports copies of TypeScript helpers (local-typescript.ts);
 * `shifts`, where the rewritten specifiers moved the rest of their lines; `map`, a compiled
 * TypeScript copy's source map (JSON text). `eager`, when the file imports nothing but the
 * running Retrace and Node's built-ins, statically: those modules, to be loaded before the file
 * is, which then compiles no module but its own (see eager-compile.ts). `script`: such a file
 * that exports nothing runs as a script, through V8's code cache (script-plan.ts).
 */
export type ImportPlan =
  | { kind: "native"; eager?: readonly string[] }
  | { kind: "copy"; text: string; own: readonly (readonly [string, string])[]; shifts: readonly ColumnShift[]; map?: string; eager?: readonly string[]; helpers?: true }
  | { kind: "script"; script: ScriptPlan }
  | { kind: "hooks" };

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

/** The folder of the package `name` in the nearest node_modules above `dir` that holds it. */
function installedAt(name: string, dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(at) === at) return undefined;
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
  return lexed(text)?.imports;
}

/** A module's imports and how many exports it declares (see `imports`), or undefined when the lexer cannot read it. */
function lexed(text: string): { imports: readonly Import[]; exports: number } | undefined {
  const last = Math.max(text.lastIndexOf("import"), text.lastIndexOf("export"));
  if (last === -1) return { imports: [], exports: 0 };
  for (let end = lineEnd(text, last); ; end = lineEnd(text, 2 * end + 4096)) {
    const whole = end >= text.length;
    // The lexer reads some statements as finished at a cut that leaves them unfinished
    // (`export *` with its `from` on a later line, `export * as`, `import.`, a comment left
    // open): the cut must fall where no statement goes on.
    if (!whole && !clean(text, end)) continue;
    try {
      const [found, exported] = parse(whole ? text : text.slice(0, end));
      if (whole || found.every((entry) => entry.importEnd < end)) return { imports: found, exports: exported.length };
    } catch {
      if (whole) return undefined;
    }
  }
}

/**
 * Whether a cut at `at` (a line start) leaves no statement going on: no block comment open
 * before it, the line before it not ending in `.` or `as`, and the next token (past spaces
 * and comments) not one that continues a statement. Unsure is not clean: a cut that is not
 * clean only costs reading further.
 */
function clean(text: string, at: number): boolean {
  if (text.lastIndexOf("/*", at) > text.lastIndexOf("*/", at)) return false;
  if (endsOpen(text, at)) return false;
  let index = at;
  for (let scanned = 0; index < text.length && scanned < 4096; scanned++) {
    const char = text[index] as string;
    if (char === " " || char === "\t" || char === "\n" || char === "\r") index++;
    else if (text.startsWith("//", index)) {
      const next = text.indexOf("\n", index);
      if (next === -1) return true;
      index = next + 1;
    } else if (text.startsWith("/*", index)) {
      const close = text.indexOf("*/", index + 2);
      if (close === -1) return false;
      index = close + 2;
    } else return !CONTINUES.test(text.slice(index, index + 8));
  }
  return index >= text.length;
}

/**
 * Whether the line before `at` ends, past spaces and comments, in `.` or `as` (so the statement
 * goes on on the next line), or might: a comment it ends in that began on an earlier line, and a
 * `//` that may be in a string, count both ways.
 */
function endsOpen(text: string, at: number): boolean {
  const start = text.lastIndexOf("\n", at - 2) + 1;
  let end = at;
  for (;;) {
    while (end > start && /\s/.test(text[end - 1] as string)) end--;
    if (!text.startsWith("*/", end - 2) || end - 2 < start) break;
    const open = text.lastIndexOf("/*", end - 3);
    if (open < start) return true;
    end = open;
  }
  const open = (to: number): boolean => {
    let last = to;
    while (last > start && /\s/.test(text[last - 1] as string)) last--;
    const tail = text.slice(Math.max(start, last - 3), last);
    return tail.endsWith(".") || /(?:^|[^\w$])as$/.test(tail);
  };
  const comment = text.lastIndexOf("//", end);
  return open(end) || (comment >= start && open(comment));
}
/** Tokens that continue an import or export statement begun before them. */
const CONTINUES = /^(?:from\b|as\b|with\b|assert\b|[,{}*.(=])/;

/** The index just past the line break at or after `from` (the text's length when none follows). */
function lineEnd(text: string, from: number): number {
  const at = text.indexOf("\n", from);
  return at === -1 ? text.length : at + 1;
}

/** Whether a module's imports of Retrace's name need help: the name is not installed above the module. */
function needsHelp(entries: readonly Import[], file: string): boolean {
  return entries.some((entry) => {
    const self = typeof entry.specifier === "string" ? SELF.exec(entry.specifier) : null;
    return self !== null && installedAt(self[1] as string, dirname(file)) === undefined;
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

/**
 * How to import the TypeScript eval file at `file`, from its compiled JavaScript `code`: from a
 * rewritten copy of the code when its only imports are Retrace's own (the running copy, where
 * Node would find it too) and Node's built-ins, so that the hooks thread does not start; through
 * the hooks otherwise. Any other import (a relative or absolute path, a URL, a package) may name
 * TypeScript, or a module that imports Retrace itself, which only the hooks load.
 */
export async function planTypeScript(file: string, code: string, options: PlanOptions = {}): Promise<ImportPlan> {
  await init;
  const found = lexed(code);
  if (!found) return { kind: "hooks" };
  const script = options.script === false ? undefined : scriptFor(withoutInlineMap(code), found, file);
  if (script) return { kind: "script", script };
  const entries = found.imports;
  for (const entry of entries) {
    // A computed dynamic import: the rewrite refuses it below.
    if (typeof entry.specifier !== "string") continue;
    // Retrace's own name is the rewrite's to check, and relative ones local-typescript.ts's.
    if (!SELF.test(entry.specifier) && !isBuiltin(entry.specifier) && !RELATIVE.test(entry.specifier)) return { kind: "hooks" };
  }
  const local = entries.some((entry) => typeof entry.specifier === "string" && RELATIVE.test(entry.specifier));
  const targets = local ? await localTargets(file, entries, PLANNER) : new Map<string, string>();
  if (targets === undefined) return { kind: "hooks" };
  const copy = rewritten(code, entries, pathToFileURL(file).href, targets);
  if (copy === undefined) return { kind: "hooks" };
  const eager = compiledWhole(withoutInlineMap(code), entries, file);
  const plan: ImportPlan = eager ? { kind: "copy", ...copy, eager } : { kind: "copy", ...copy };
  return targets.size > 0 ? { ...plan, helpers: true } : plan;
}

/** A compiled TypeScript helper's imports, when a copy of it can take each (see local-typescript.ts). */
function helperImports(code: string, path: string): readonly Import[] | undefined {
  const entries = lexed(code)?.imports;
  if (!entries) return undefined;
  for (const entry of entries) {
    if (entry.type === "import-meta" || typeof entry.specifier !== "string") return undefined;
    const self = SELF.exec(entry.specifier);
    if (self ? !resolvesHere(self[1] as string, dirname(path)) : !isBuiltin(entry.specifier) && !RELATIVE.test(entry.specifier)) return undefined;
  }
  return entries;
}

/** Whether a JavaScript module a TypeScript module imports loads natively where it is: it and its helpers find their Retrace, and import no TypeScript. */
function loadsNatively(path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return true; // Node reports it
  }
  const entries = imports(text) ?? [];
  const modules = [[path, entries] as const, ...localGraph(path, entries)];
  return modules.every(([at, list]) => !needsHelp(list, at) && !importsTypeScript(list));
}

const PLANNER: Planner = { importsOf: helperImports, rewrite: rewritten, native: loadsNatively };

/** Whether a module imports a TypeScript file by a relative path (which only the hooks load). */
const importsTypeScript = (entries: readonly Import[]): boolean =>
  entries.some((entry) => typeof entry.specifier === "string" && RELATIVE.test(entry.specifier) && /\.(?:m?ts|tsx)(?:[?#].*)?$/.test(entry.specifier));

/** Whether Node, importing `name` from `dir`, would find no package of that name, or this very copy of Retrace. */
function resolvesHere(name: string, dir: string): boolean {
  const found = installedAt(name, dir);
  return found === undefined || realpathOr(found) === realpathOr(ownPackage().root);
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `script: false`: the file does not run as a script (its script did not compile; see load.ts). */
export interface PlanOptions {
  script?: boolean;
}

/** Whether Node loads a JavaScript file as an ES module: a .mjs file, or a .js file whose nearest package.json says "type": "module". */
function isModuleFile(file: string): boolean {
  if (file.endsWith(".mjs")) return true;
  for (let at = dirname(file); ; at = dirname(at)) {
    const found = join(at, "package.json");
    if (existsSync(found)) {
      try {
        return (JSON.parse(readFileSync(found, "utf8")) as { type?: unknown }).type === "module";
      } catch {
        return false; // Node reports it
      }
    }
    if (dirname(at) === at) return false;
  }
}

/** How to import the JavaScript eval file at `file` (its text `text`). */
export async function planImport(file: string, text: string, options: PlanOptions = {}): Promise<ImportPlan> {
  await init;
  const found = lexed(text);
  // Node reports a file the lexer cannot read better than we could.
  if (!found) return { kind: "native" };
  // A .js file is a module only where its package says so: CommonJS (require) is Node's.
  const script = options.script === false || !isModuleFile(file) ? undefined : scriptFor(text, found, file);
  if (script) return { kind: "script", script };
  const entries = found.imports;
  const helpers = localGraph(file, entries);
  // A TypeScript module it imports, at any depth, is the hooks' to compile.
  if (importsTypeScript(entries) || [...helpers].some(([helper, list]) => needsHelp(list, helper) || importsTypeScript(list))) return { kind: "hooks" };
  const eager = compiledWhole(text, entries, file);
  if (!needsHelp(entries, file)) return eager ? { kind: "native", eager } : { kind: "native" };
  const copy = rewritten(text, entries, pathToFileURL(file).href);
  if (copy === undefined) return { kind: "hooks" };
  return eager ? { kind: "copy", ...copy, eager } : { kind: "copy", ...copy };
}

/**
 * A file longer than this is compiled lazily even when it imports nothing else: parsed whole,
 * its syntax tree is held at once (a 3 MB file of 10,000 cases peaked 50 MB higher), where a
 * lazy compile holds one function's at a time.
 */
const EAGER_LIMIT = 1024 * 1024;

/**
 * The modules to load before the module, when importing it would then compile no module but
 * its own and it is short enough to compile whole (see eager-compile.ts); undefined otherwise.
 */
function compiledWhole(text: string, entries: readonly Import[], file: string): string[] | undefined {
  return text.length <= EAGER_LIMIT ? selfContained(entries, file) : undefined;
}

/** Compiled TypeScript without the source map esbuild appends, which is a comment to V8. */
function withoutInlineMap(code: string): string {
  const at = code.lastIndexOf("\n//# sourceMappingURL=data:");
  return at === -1 ? code : code.slice(0, at);
}

/**
 * Node's `module` builtin: its createRequire and register load any module, from the file's top
 * level, while nothing but the file was to be compiled whole. (`process.getBuiltinModule`
 * reaches it without an import; a file that does so only compiles more of what it loads whole,
 * which costs time, never a result.)
 */
const LOADS_ANYTHING = new Set(["module", "node:module"]);

/**
 * When every import of the module is a static one of Node's built-ins or of Retrace's name
 * that resolves to the running copy, the modules it imports, as URLs or built-in names: loaded
 * first, they leave its import nothing to compile but its own code. A path, a URL, a package or
 * a dynamic import could bring in code that is mostly never called: undefined.
 */
function selfContained(entries: readonly Import[], file: string): string[] | undefined {
  const first: string[] = [];
  for (const entry of entries) {
    const target = loadedFrom(entry, file);
    if (target === undefined) return undefined;
    first.push(target);
  }
  return [...new Set(first)];
}

/**
 * What a static import of the running Retrace (its face's URL) or of a Node built-in (its
 * name) loads; undefined for any other import, which could bring in code of its own.
 */
function loadedFrom(entry: Import, file: string): string | undefined {
  if ((entry.type !== "static" && entry.type !== "reexport-star") || entry.phase !== null) return undefined;
  const specifier = entry.specifier;
  if (typeof specifier !== "string") return undefined;
  const self = SELF.exec(specifier);
  // The vitest face imports vitest.
  if (self) return self[2] === "/vitest" || !resolvesHere(self[1] as string, dirname(file)) ? undefined : ownModule(self[2] ?? "");
  return isBuiltin(specifier) && !LOADS_ANYTHING.has(specifier) ? specifier : undefined;
}

/**
 * The script a self-contained file (see script-plan.ts) runs as, when it exports nothing and
 * is no longer than a file compiled whole (a longer one's kept code, 8 MB for 10,000 cases,
 * raised that suite's peak RSS by ~50 MB); undefined otherwise.
 */
function scriptFor(text: string, found: { imports: readonly Import[]; exports: number }, file: string): ScriptPlan | undefined {
  if (found.exports > 0 || text.length > EAGER_LIMIT) return undefined;
  // With --enable-source-maps, Node maps a module's frames and not a script's.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true) return undefined;
  const targets: string[] = [];
  for (const entry of found.imports) {
    const target = entry.type === "static" ? loadedFrom(entry, file) : undefined;
    if (target === undefined) return undefined;
    targets.push(target);
  }
  return scriptPlan(text, found.imports as readonly StaticImport[], targets);
}

/** `text` with its imports pointing where Node would take them from `url`, or undefined when the rewrite could change its meaning. */
function rewritten(text: string, entries: readonly Import[], url: string, targets?: ReadonlyMap<string, string>): { text: string; own: [string, string][]; shifts: ColumnShift[] } | undefined {
  const places: { start: number; end: number; target: string }[] = [];
  const own: [string, string][] = [];
  for (const entry of entries) {
    if (entry.type === "import-meta") return undefined;
    const specifier = entry.specifier;
    if (typeof specifier !== "string" || (entry.type === "dynamic" && entry.glob)) return undefined;
    let target: string | undefined;
    const self = SELF.exec(specifier);
    if (self) {
      // A package of that name the project has (another one, the `retrace` of npm) is Node's to load.
      if (!resolvesHere(self[1] as string, dirname(fileURLToPath(url)))) return undefined;
      target = ownModule(self[2] ?? "");
      if (target !== undefined) own.push([target, specifier]);
    }
    // A helper's copy is named in messages by local-typescript.ts, which knows every module's spelling of it.
    else if (RELATIVE.test(specifier)) target = targets?.get(specifier) ?? new URL(specifier, url).href;
    else if (isBuiltin(specifier) || /^(?:file|data):|^\//.test(specifier)) continue;
    if (target === undefined) return undefined;
    // A static specifier's place excludes its quotes; a dynamic import's argument includes them.
    places.push(entry.type === "dynamic" ? { start: entry.start, end: entry.end, target } : { start: entry.start - 1, end: entry.end + 1, target });
  }
  places.sort((a, b) => a.start - b.start);
  let out = "";
  let last = 0;
  let line = 1;
  const shifts: ColumnShift[] = [];
  for (const place of places) {
    const before = text.slice(last, place.start);
    for (let at = before.indexOf("\n"); at !== -1; at = before.indexOf("\n", at + 1)) line++;
    const written = JSON.stringify(place.target);
    out += before + written;
    shifts.push({ line, after: out.length - out.lastIndexOf("\n"), by: written.length - (place.end - place.start) });
    last = place.end;
  }
  return { text: out + text.slice(last), own, shifts };
}
