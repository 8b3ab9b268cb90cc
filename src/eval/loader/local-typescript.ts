/**
 * The TypeScript modules a TypeScript eval file imports by relative path (shared helpers,
 * fixtures), compiled into copies of this process's, so that the eval file is imported from its
 * rewritten copy as one without helpers is: Node's module hooks, a thread whose start alone took
 * 30–41 ms on these machines, are not started for them. A helper qualifies as the eval file's
 * copy does (see self-imports.ts): it imports Retrace, Node's built-ins, and modules by relative
 * path — TypeScript, found as the hooks find it (`./x.js` for `./x.ts`, `./x` for `./x.ts`), or
 * JavaScript and JSON, imported where they are — and has no `import.meta` (it would be the
 * copy's). One helper not qualifying sends the eval file to the hooks, as before.
 *
 * Each helper has one copy per process, named by its real path, so eval files that share it
 * share one module, as through the hooks; the loader sends every file to the hooks when any file
 * needs them (see load.ts), so a helper is never both a copy and the hooks' module. The copies go
 * once every file is loaded, unless something may still `import()` one (see releaseHelperCopies).
 */
import { readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { basename, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createHash } from "node:crypto";
import type { Import } from "es-module-lexer";
import { madeCopyFolder, removeCopyFolder } from "./copy-folders.js";
import { EVAL_FILE } from "./discover.js";
import type { ColumnShift } from "./source-maps.js";
import { registerSourceMap } from "./source-maps.js";
import { compileTypeScript, inlineSourceMap, typescriptCacheDir, typescriptNames } from "./typescript.js";

/** What the import planner knows how to do (self-imports.ts), handed over so that this module does not import it. */
export interface Planner {
  /** A compiled module's imports, when each is one a copy can take (Retrace's, a built-in, a relative one); undefined otherwise. */
  importsOf(code: string, path: string): readonly Import[] | undefined;
  /** The module's text with its imports pointing at `targets` (relative specifiers) and at the running Retrace; undefined when that could change its meaning. */
  rewrite(code: string, entries: readonly Import[], url: string, targets: ReadonlyMap<string, string>): { text: string; shifts: ColumnShift[] } | undefined;
  /** Whether a JavaScript module at `path` is imported natively as it is (it and its helpers find the Retrace they import). */
  native(path: string): boolean;
}

const RELATIVE = /^\.{1,2}\//;
const TYPESCRIPT = /\.(?:m?ts|tsx)$/;

/** A helper's module: its compiled code and imports, and where its copy is. */
interface Helper {
  real: string;
  code: string;
  entries: readonly Import[];
  copy: string;
}

/** Helpers compiled and checked in this process, by real path (undefined: not one a copy can take). */
let helpers = new Map<string, Promise<Helper | undefined>>();
/** Copies written, by real path. */
let written = new Set<string>();
/** The helper's real path, by its copy's path. */
const originals = new Map<string, string>();
/** How modules wrote each copy's URL they import, for messages: a copy spelled one way only is named that way. */
const spellings = new Map<string, Set<string>>();
let folder: string | undefined;
/** Whether a copy written, or an eval file importing copies, imports something at run time (`import()`): the folder must then stay until the process exits. */
let importsLater = false;

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * What a relative specifier in the TypeScript module at `from` names, as Node and then the hooks
 * find it: a TypeScript module (outside node_modules, which the hooks leave to Node), another
 * file imported where it is, or undefined (nothing, or a folder: Node's error to give).
 */
function located(specifier: string, from: string): { typescript: boolean; path: string } | undefined {
  const base = pathToFileURL(from);
  // Node takes its own module for a query or a fragment; a copy would be one for all of them.
  if (/[?#]/.test(specifier)) return undefined;
  const found = (path: string): { typescript: boolean; path: string } => {
    // As Node names the module, and as the hooks see it: by its real path.
    const real = realpathSync(path);
    return { typescript: TYPESCRIPT.test(real) && !real.includes(`${sep}node_modules${sep}`), path: real };
  };
  const exact = fileURLToPath(new URL(specifier, base));
  if (isFile(exact)) return found(exact);
  try {
    statSync(exact);
    return undefined;
  } catch {
    // Not there: TypeScript's names for it.
  }
  for (const name of typescriptNames(specifier)) {
    const path = fileURLToPath(new URL(name, base));
    if (isFile(path)) return found(path);
  }
  return undefined;
}

/** The helper at `real` (a real path, as `located` gives it), compiled and checked once per process. */
function helper(real: string, planner: Planner): Promise<Helper | undefined> {
  let found = helpers.get(real);
  if (!found) {
    found = compiled(real, planner);
    helpers.set(real, found);
  }
  return found;
}

async function compiled(real: string, planner: Planner): Promise<Helper | undefined> {
  let code: string;
  try {
    code = await compileTypeScript(real, readFileSync(real, "utf8"), typescriptCacheDir());
  } catch {
    return undefined; // the hooks report it, as they always have
  }
  const entries = planner.importsOf(code, real);
  if (!entries) return undefined;
  folder ??= madeCopyFolder("retrace-eval-helpers-");
  // The name is for people reading a stack trace you print yourself; its length stays far below the system's limit.
  const name = `${createHash("sha256").update(real).digest("hex").slice(0, 16)}-${basename(real).replace(/\.[^.]+$/, "").slice(0, 64)}.mjs`;
  return { real, code, entries, copy: join(folder, name) };
}

/** Where each relative specifier of a module points: a helper's copy, or the file itself. Undefined when one cannot be copied. */
async function targetsOf(entries: readonly Import[], from: string, planner: Planner, found: Map<string, Helper>): Promise<Map<string, string> | undefined> {
  const targets = new Map<string, string>();
  for (const entry of entries) {
    const specifier = entry.specifier;
    if (typeof specifier !== "string" || !RELATIVE.test(specifier) || targets.has(specifier)) continue;
    const target = located(specifier, from);
    if (!target) return undefined;
    if (!target.typescript) {
      if (/\.m?js$/.test(target.path) && !planner.native(target.path)) return undefined;
      targets.set(specifier, pathToFileURL(target.path).href);
      continue;
    }
    const module = await helper(target.path, planner);
    if (!module) return undefined;
    found.set(module.real, module);
    targets.set(specifier, pathToFileURL(module.copy).href);
  }
  return targets;
}

/**
 * Where the eval file's relative imports point (its helpers' copies, written here, or the files
 * themselves), or undefined when any helper, at any depth, is not one a copy can take, or when
 * anything goes wrong on the way (the hooks then load the file, and report what is wrong).
 */
export async function localTargets(file: string, entries: readonly Import[], planner: Planner): Promise<Map<string, string> | undefined> {
  try {
    return await copied(realpathSync(file), entries, planner);
  } catch {
    return undefined;
  }
}

async function copied(file: string, entries: readonly Import[], planner: Planner): Promise<Map<string, string> | undefined> {
  const found = new Map<string, Helper>();
  const own = await targetsOf(entries, file, planner, found);
  if (!own) return undefined;
  const later = entries.some((entry) => entry.type === "dynamic");
  const texts = new Map<string, { text: string; shifts: ColumnShift[]; map: string | undefined; targets: ReadonlyMap<string, string> }>();
  // A Map's iteration reaches the helpers targetsOf adds to it on the way: every helper, at any depth, once.
  for (const module of found.values()) {
    // An eval file as a helper (this one, or another of the run) would run twice: its own copy, and the helper's.
    if (module.real === file || EVAL_FILE.test(module.real)) return undefined;
    const targets = await targetsOf(module.entries, module.real, planner, found);
    const url = pathToFileURL(module.real).href;
    const copy = targets && planner.rewrite(module.code, module.entries, url, targets);
    if (!copy) return undefined;
    // Frames name the helper (V8 takes the last sourceURL) and map through its source map.
    texts.set(module.real, { text: `${copy.text}\n//# sourceURL=${url}\n`, shifts: copy.shifts, map: inlineSourceMap(module.code), targets });
  }
  if (later) importsLater = true;
  for (const [specifier, target] of own) spell(target, specifier);
  for (const module of found.values()) {
    if (written.has(module.real)) continue;
    const { text, shifts, map, targets } = texts.get(module.real) as NonNullable<ReturnType<typeof texts.get>>;
    writeFileSync(module.copy, text);
    written.add(module.real);
    originals.set(module.copy, module.real);
    for (const [specifier, target] of targets) spell(target, specifier);
    if (module.entries.some((entry) => entry.type === "dynamic")) importsLater = true;
    if (map !== undefined) for (const name of [module.copy, module.real]) registerSourceMap(name, map, shifts);
  }
  return own;
}

function spell(target: string, specifier: string): void {
  spellings.set(target, (spellings.get(target) ?? new Set()).add(specifier));
}

/**
 * Once every eval file is loaded, the copies' folder goes (an interrupted process does not
 * leave it), unless a copy imports something at run time: it then stays until the process
 * exits. A later load in the same process copies its helpers anew.
 */
export function releaseHelperCopies(): void {
  if (folder === undefined || importsLater) return;
  removeCopyFolder(folder);
  folder = undefined;
  helpers = new Map();
  written = new Set();
}

/**
 * `text` (a load error's message) with each helper's copy named as the helper: as the modules
 * that import it wrote it, when they all wrote it one way, or else by the helper's own path.
 */
export function inHelperTerms(text: string): string {
  let out = text;
  for (const [copy, real] of originals) {
    const url = pathToFileURL(copy).href;
    const spelled = spellings.get(url);
    if (spelled?.size === 1) out = out.split(`'${url}'`).join(`'${[...spelled][0] as string}'`);
    out = out.split(url).join(pathToFileURL(real).href).split(copy).join(real);
  }
  return out;
}
