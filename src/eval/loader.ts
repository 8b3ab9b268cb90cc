/**
 * Finds eval files and loads them without a build step: `.js`/`.mjs` natively, `.ts`/`.mts`
 * compiled first (see typescript.ts). Files are imported one at a time so
 * that each `defineEval` call is credited to the file that made it. A file that cannot be
 * loaded is reported with its error and the others still run.
 */
import { readdirSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage, EvalLoadError, RetraceError } from "../errors/index.js";
import { collectCases, type EvalCase } from "./define.js";
import { compileTypeScript, type Compiled } from "./typescript.js";

export const EVAL_FILE = /\.eval\.(?:ts|mts|js|mjs)$/;
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

/** Eval files under the given paths (folders are searched recursively; files are taken as given). */
export function discoverEvalFiles(paths: readonly string[], cwd: string): { files: string[]; errors: LoadedFile[] } {
  const files = new Set<string>();
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
      files.add(path);
      continue;
    }
    const found = (readdirSync(path, { recursive: true }) as string[])
      .filter((entry) => EVAL_FILE.test(entry) && !entry.split(sep).some((part) => part === "node_modules" || part.startsWith(".")))
      .map((entry) => resolve(path, entry));
    if (found.length === 0) {
      errors.push({ path, file: displayPath(path, cwd), cases: [], error: { code: "eval_load", message: `no eval files (*.eval.ts, *.eval.js, ...) in ${given}` } });
    }
    for (const file of found) files.add(file);
  }
  return { files: [...files].sort(), errors };
}

const loadCount = new Map<string, number>();

async function importFresh(url: URL): Promise<unknown> {
  // A second load in the same process (a test calling the CLI twice) must evaluate the file
  // again, or it would define nothing the second time.
  const count = loadCount.get(url.href) ?? 0;
  loadCount.set(url.href, count + 1);
  if (count > 0) url.search = `?retrace-load=${count}`;
  return import(url.href);
}

/** Loads one eval file; `compiled` is the module to import instead, for TypeScript. */
export async function loadEvalFile(path: string, cwd: string, compiled?: Compiled): Promise<LoadedFile> {
  const file = displayPath(path, cwd);
  if (compiled && "error" in compiled) return { path, file, cases: [], error: { code: "eval_load", message: `${file}: cannot load: ${compiled.error}` } };
  let cases: EvalCase[];
  try {
    cases = await collectCases(path, () => importFresh(pathToFileURL(compiled ? compiled.module : path)));
  } catch (error) {
    const place = error instanceof RetraceError ? error : new EvalLoadError(`cannot load: ${describeLoadError(error)}`, { file });
    return { path, file, cases: [], error: { code: place.code, message: `${file}: ${place.message}` } };
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

function describeLoadError(error: unknown): string {
  const message = errorMessage(error);
  // Keep the report short: the first lines hold the message and its location.
  return message.split("\n").slice(0, 4).join(" ").replace(/\s+/g, " ").trim();
}

/** Loads the eval files under `paths`: discovery errors first, then each file by path. */
export async function loadEvalFiles(paths: readonly string[], cwd: string): Promise<LoadedFile[]> {
  const { files, errors } = discoverEvalFiles(paths, cwd);
  const loaded: LoadedFile[] = [...errors];
  const typescript = files.filter((path) => TYPESCRIPT.test(path));
  const compilation = typescript.length ? compileTypeScript(typescript) : undefined;
  try {
    for (const path of files) loaded.push(await loadEvalFile(path, cwd, compilation && TYPESCRIPT.test(path) ? await compilation.get(path) : undefined));
  } finally {
    compilation?.dispose();
  }
  return loaded;
}
