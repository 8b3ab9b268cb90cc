/**
 * Finds eval files and loads them without a build step, with Node's own import: `.js`/`.mjs`
 * natively, or from a copy whose imports of a Retrace the project does not have point at the
 * running one; `.ts`/`.mts` compiled (typescript.ts) and imported the same way when their only
 * imports are Retrace's and Node's; such a file that exports nothing, from its text's second
 * run on, as a script through the code cache (script-load.ts); anything else through the module hooks of hooks.ts
 * (registered only then; see self-imports.ts for the rules). Files are imported one at a time
 * so that each `defineEval` call is credited to the file that made it. A file that cannot be loaded — or
 * whose top level does not settle within the timeout — is reported with its error and the
 * others still run.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Script } from "node:vm";
import { errorMessage, EvalLoadError, RetraceError } from "../../errors/index.js";
import { PACKAGE_NAME } from "../../package-info.js";
import { importNative } from "../../runtime/index.js";
import { collectCases, type EvalCase } from "../dsl/index.js";
import { madeCopyFolder, removeCopyFolder } from "./copy-folders.js";
import { findEvalFiles } from "./discover.js";
import { inHelperTerms, releaseHelperCopies } from "./local-typescript.js";
import { compiledEagerly } from "./eager-compile.js";
import { compileScript, runScript } from "./script-load.js";
import type { ScriptPlan } from "./script-plan.js";
import { prepareTypeScript, stopCompiler, useEvalHooks } from "./register.js";
import { ownModule, planImport, planTypeScript, type ImportPlan } from "./self-imports.js";
import { registerMovedModule, registerSourceMap } from "./source-maps.js";
import { compileTypeScript, inlineSourceMap, locateSyntaxError, stopTypeScript, typescriptCacheDir } from "./typescript.js";

const TYPESCRIPT = /\.m?ts$/;

export interface LoadedFile {
  /** Absolute path. */
  path: string;
  /** As reports show it: relative to the working directory, with "/" separators. */
  file: string;
  cases: EvalCase[];
  error?: { code: string; message: string };
}

export function displayPath(path: string, cwd: string): string {
  const shown = relative(cwd, path);
  return (shown && !shown.startsWith("..") && !isAbsolute(shown) ? shown : path).split(sep).join("/");
}

/**
 * Eval files under the given paths (folders are searched recursively; files are taken as given),
 * each once: a file reached by two paths (a link, two overlapping arguments) is one module to
 * Node, which would run it the first time and find no cases the second.
 */
export function discoverEvalFiles(paths: readonly string[], cwd: string): { files: string[]; errors: LoadedFile[] } {
  const files: string[] = [];
  const reals = new Set<string>();
  const add = (path: string): void => {
    let real = path;
    try {
      real = realpathSync(path);
    } catch {
      // Loading it says what is wrong.
    }
    if (reals.has(real)) return;
    reals.add(real);
    files.push(path);
  };
  const errors: LoadedFile[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      errors.push({ path, file: displayPath(path, cwd), cases: [], error: { code: "eval_load", message: `${given}: no such file or folder` } });
      continue;
    }
    if (!isDirectory) {
      add(path);
      continue;
    }
    const found = findEvalFiles(path);
    if (found.length === 0) {
      errors.push({ path, file: displayPath(path, cwd), cases: [], error: { code: "eval_load", message: `no eval files (*.eval.ts, *.eval.js, ...) in ${given}` } });
    }
    for (const file of found) add(file);
  }
  return { files: files.sort(), errors };
}

const loadCount = new Map<string, number>();

async function importFresh(url: URL): Promise<unknown> {
  // A second load in the same process (a test calling the CLI twice) must evaluate the file
  // again, or it would define nothing the second time.
  const count = loadCount.get(url.href) ?? 0;
  loadCount.set(url.href, count + 1);
  if (count > 0) url.search = `?retrace-load=${count}`;
  return importNative(url.href);
}

export interface LoadOptions {
  /** How long a file's top level may take to run (an import that never settles is reported). Default 30 s. */
  timeoutMs?: number;
}

const DEFAULT_LOAD_TIMEOUT_MS = 30_000;

class LoadTimeout extends Error {}

/** `promise`, or a LoadTimeout after `ms`; the timer keeps the process alive until then. */
function withLoadTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LoadTimeout()), Math.min(ms, 2 ** 31 - 1));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Loads one eval file: `module` is what is imported (its rewritten copy, when it has one), and
 * `eager`, when it imports nothing but Retrace and Node's built-ins, those modules (see
 * eager-compile.ts); `script`, the compiled script it runs as instead (see script-plan.ts).
 */
async function loadEvalFile(
  path: string,
  cwd: string,
  options: LoadOptions = {},
  how: { module?: string; eager?: readonly string[] | undefined; script?: CompiledScript } = {},
): Promise<LoadedFile> {
  const file = displayPath(path, cwd);
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const { eager, script } = how;
  const imported = () => withLoadTimeout(importFresh(pathToFileURL(how.module ?? path)), timeoutMs);
  let load = eager ? () => compiledEagerly(imported, eager) : imported;
  if (script) {
    if (script.script.map !== undefined) registerSourceMap(path, script.script.map);
    load = () => withLoadTimeout(runScript(script.compiled, script.script), timeoutMs);
  }
  let cases: EvalCase[];
  try {
    cases = await collectCases(path, load);
  } catch (error) {
    if (error instanceof LoadTimeout) {
      const message = `${file}: did not finish loading within ${timeoutMs} ms (does its top level await something that never settles?); its cases were not run`;
      return { path, file, cases: [], error: { code: "eval_load_timeout", message } };
    }
    return failedLoad(path, file, await withSyntaxPlace(path, file, error));
  }
  if (cases.length === 0) {
    return { path, file, cases, error: { code: "eval_load", message: `${file}: defines no eval cases (call defineEval at the top level)` } };
  }
  const seen = new Set<string>();
  for (const definition of cases) {
    if (seen.has(definition.name)) {
      return { path, file, cases: [], error: { code: "eval_invalid", message: `${file}: two cases are named "${definition.name}"; case names must be unique in a file` } };
    }
    seen.add(definition.name);
  }
  return { path, file, cases };
}

/** A JavaScript file's SyntaxError with its place in the file, when the file itself holds it (not a module it imports). */
async function withSyntaxPlace(path: string, file: string, error: unknown): Promise<unknown> {
  if (!(error instanceof SyntaxError) || TYPESCRIPT.test(path)) return error;
  let located: string | undefined;
  try {
    // Named as every other load error names the file (relative to the loader's cwd).
    located = await locateSyntaxError(file, readFileSync(path, "utf8"));
  } catch {
    // Left as Node reported it.
  }
  return located === undefined ? error : new EvalLoadError(`cannot load: ${located} (Node: ${describeLoadError(error)})`, { file });
}

/** A file that could not be loaded (compiled, linked or evaluated), with what went wrong. */
function failedLoad(path: string, file: string, error: unknown): LoadedFile {
  const place = error instanceof RetraceError ? error : new EvalLoadError(`cannot load: ${describeLoadError(error)}`, { file });
  return { path, file, cases: [], error: { code: place.code, message: `${file}: ${place.message}` } };
}

function describeLoadError(error: unknown): string {
  const message = errorMessage(error);
  // Keep the report short: the first lines hold the message and its location.
  return message.split("\n").slice(0, 4).join(" ").replace(/\s+/g, " ").trim();
}

/**
 * Bytes read or written while eval files load, kept referenced until all of them have loaded.
 * glibc raises its mmap threshold when a big block is freed, and after that the tens of MB V8
 * frees once it has compiled a big module stay with the allocator instead of going back to the
 * system: a 10,000-case file (3 MB) cost 50 MB more peak RSS. Freed after the imports, the few
 * MB held here cost nothing of the kind.
 */
type Held = Buffer[];

/** Loads the eval files under `paths`: discovery errors first, then each file by path. */
export async function loadEvalFiles(paths: readonly string[], cwd: string, options: LoadOptions = {}): Promise<LoadedFile[]> {
  const { files, errors } = discoverEvalFiles(paths, cwd);
  const loaded: LoadedFile[] = [...errors];
  const held: Held = [];
  try {
    // TypeScript is compiled here first: a file that needs nothing the hooks do is imported
    // from a compiled copy, and the hooks thread (~20 ms, more on a busy core) never starts.
    const typescript = new Map<string, TypeScriptPlan>();
    await Promise.all(files.filter((path) => TYPESCRIPT.test(path)).map(async (path) => typescript.set(path, await planForTypeScript(path, held))));
    const javascript = new Map<string, Plan>();
    for (const path of files) if (!TYPESCRIPT.test(path)) javascript.set(path, await planFor(path, held));
    // A helper is one module for every file: when any file needs the hooks, files whose
    // TypeScript helpers were copied (local-typescript.ts) load through the hooks too.
    if ([...typescript.values(), ...javascript.values()].some((plan) => plan.kind === "hooks")) {
      for (const [path, plan] of typescript) if (plan.kind === "copy" && plan.helpers) typescript.set(path, { kind: "hooks" });
    }
    const hooked = [...typescript].filter(([, plan]) => plan.kind === "hooks").map(([path]) => path);
    if (hooked.length) {
      // One esbuild at a time: the hooks thread starts its own for the helpers.
      await stopTypeScript();
      useEvalHooks();
      // Untimed, before any file's load timeout starts: the compiles, and the first trips
      // through the hooks thread (Retrace's public entry, which TypeScript files import).
      await Promise.all([prepareTypeScript(hooked), warmOwnEntry()]);
    }
    for (const path of files) {
      let result: LoadedFile | undefined;
      const compiled = typescript.get(path);
      if (compiled?.kind === "failed") {
        result = failedLoad(path, displayPath(path, cwd), compiled.error);
      } else if (compiled) {
        if (compiled.kind === "copy") result = await loadCopy(path, compiled, cwd, options, held);
        else result = await loadEvalFile(path, cwd, options, compiled.kind === "script" ? { script: compiled } : {});
      } else {
        const plan = javascript.get(path) as Plan;
        if (plan.kind === "copy") result = await loadCopy(path, plan, cwd, options, held);
        else if (plan.kind === "script") result = await loadEvalFile(path, cwd, options, { script: plan });
        else {
          if (plan.kind === "hooks") useEvalHooks();
          result = await loadEvalFile(path, cwd, options, { eager: plan.kind === "native" ? plan.eager : undefined });
        }
      }
      if (result.error && NO_RETRACE.test(result.error.message)) {
        // The eval file imports Retrace under a name Node could not resolve after all (an
        // installed package without that subpath, say): the hooks resolve it to the running copy.
        useEvalHooks();
        result = await loadEvalFile(path, cwd, options);
      }
      loaded.push(result);
    }
  } finally {
    releaseHelperCopies();
    await Promise.all([stopCompiler(), stopTypeScript()]);
  }
  return loaded;
}

/** Imports the running Retrace's public entry, where the hooks send a `retrace-agents` the project does not have. */
async function warmOwnEntry(): Promise<void> {
  const entry = ownModule("");
  if (entry) await importNative(entry).catch(() => undefined);
}

/** A plan to run the file as a script, with the script compiled. */
type CompiledScript = { kind: "script"; script: ScriptPlan; compiled: Script };

/** How a file is loaded: a script plan only once its script compiled (see script-load.ts). */
type Plan = Exclude<ImportPlan, { kind: "script" }> | CompiledScript;

/**
 * The plan with its script compiled, or the file's plan as a module (`asModule`) when it is
 * not to run as a script this time (its text's first run, no code cache; see script-load.ts)
 * or its script does not compile, when Node imports it and names what is wrong.
 */
async function compiled(path: string, plan: ImportPlan, asModule: () => Promise<ImportPlan>): Promise<Plan> {
  if (plan.kind !== "script") return plan;
  const script = compileScript(path, plan.script);
  if (script) return { kind: "script", script: plan.script, compiled: script };
  const module = await asModule();
  // Defensive: a plan made without scripts is not one.
  return module.kind === "script" ? { kind: "native" } : module;
}

async function planFor(path: string, held: Held): Promise<Plan> {
  let text: string;
  try {
    // Read as bytes, then decoded: Node's UTF-8 read grows and frees a buffer of its own.
    const bytes = readFileSync(path);
    held.push(bytes);
    text = bytes.toString("utf8");
  } catch {
    return { kind: "native" }; // unreadable: Node says why
  }
  return compiled(path, await planImport(path, text), () => planImport(path, text, { script: false }));
}

/** How a TypeScript eval file is imported, or why it cannot be (it does not compile). */
type TypeScriptPlan = Plan | { kind: "failed"; error: unknown };

/** A TypeScript eval file's plan, made from its compiled JavaScript. */
async function planForTypeScript(path: string, held: Held): Promise<TypeScriptPlan> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    // Its own failure, without starting the hooks for a file no hook could load.
    return { kind: "failed", error };
  }
  held.push(bytes);
  let code: string;
  try {
    code = await compileTypeScript(path, bytes.toString("utf8"), typescriptCacheDir());
  } catch (error) {
    return { kind: "failed", error };
  }
  const map = inlineSourceMap(code);
  const withMap = (plan: ImportPlan): ImportPlan => {
    if (map === undefined) return plan;
    if (plan.kind === "script") return { kind: "script", script: { ...plan.script, map } };
    return plan.kind === "copy" ? { ...plan, map } : plan;
  };
  return compiled(path, withMap(await planTypeScript(path, code)), async () => withMap(await planTypeScript(path, code, { script: false })));
}

/**
 * Loads an eval file from its rewritten copy (see self-imports.ts); messages name the eval file,
 * not the copy. A compiled TypeScript file's copy comes with its source map, through which its
 * frames point at the TypeScript; a JavaScript copy has the eval file's own lines.
 */
async function loadCopy(path: string, plan: Extract<ImportPlan, { kind: "copy" }>, cwd: string, options: LoadOptions, held: Held): Promise<LoadedFile> {
  const { text, map } = plan;
  const dir = madeCopyFolder("retrace-eval-load-");
  const copy = join(dir, basename(path).replace(/\.(?:m?ts|tsx)$/, ".mjs"));
  try {
    // Encoded here and held: writing a string encodes it into a buffer three times its length, freed at once.
    // The copy's code names itself by the eval file's URL (V8 takes the last sourceURL), so its
    // stack traces, printed by the file's own code too, name the eval file, as the hooks' do.
    // A stack formatter that asks for the script's file name (vitest's, source-map-support's)
    // still gets the copy's, so frames are mapped under both names.
    const bytes = Buffer.from(`${text}\n//# sourceURL=${pathToFileURL(path).href}\n`, "utf8");
    held.push(bytes);
    writeFileSync(copy, bytes);
    for (const name of [copy, path]) {
      if (map !== undefined) registerSourceMap(name, map, plan.shifts);
      else registerMovedModule(name, path, plan.shifts);
    }
    const result = await loadEvalFile(path, cwd, options, { module: copy, eager: plan.eager });
    if (result.error) result.error.message = inHelperTerms(inOriginalTerms(result.error.message, copy, path, plan.own));
    return result;
  } finally {
    removeCopyFolder(dir);
  }
}

/**
 * A load error of a copy as the eval file would have had it: the copy's path is the file's, and
 * the running Retrace's modules (the copy's import targets) are named as the file names them.
 */
function inOriginalTerms(message: string, copy: string, path: string, own: readonly (readonly [string, string])[]): string {
  let text = message.split(pathToFileURL(copy).href).join(pathToFileURL(path).href).split(copy).join(path);
  for (const [target, specifier] of own) {
    // Two spellings of one module (`retrace` and `retrace-agents`): which one failed is not known, so the URL stays.
    if (own.some(([other, spelled]) => other === target && spelled !== specifier)) continue;
    text = text.split(`'${target}'`).join(`'${specifier}'`);
  }
  return text;
}

/** Node's error for an import of Retrace's package (or a subpath, or the `retrace` alias) that is not installed. */
const NO_RETRACE = new RegExp(`Cannot find package '(?:${PACKAGE_NAME}|retrace)'`);
