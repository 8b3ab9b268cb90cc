/**
 * Runs an eval file as the script script-plan.ts made of it, compiled through V8's code cache
 * (the runtime's folder, see src/runtime/code-cache.ts), from the second run of its text on:
 *
 * - the first run of a text imports the file as a module (compiled whole as it loads, see
 *   eager-compile.ts) and only notes the text as seen: a script's first run compiles each
 *   function as it is first called (V8's `lazy` flag reaches a script's top-level functions
 *   only, and the file's are inside the script's function), which took 1.07× the eager import's
 *   time on 1,000 cases, and 1.10× with the check below — a CI run on a fresh checkout, whose
 *   cache is always empty, would pay it every time;
 * - the second compiles the script, runs it and keeps its compiled code when the process exits;
 * - every later run reads that code back instead of compiling (0.94–0.97× the time).
 *
 * A cache V8 refuses (another Node, other flags) is compiled over and replaced. Each eval file
 * keeps one entry: a new text's replaces the old. Without a cache (RETRACE_CODE_CACHE=off,
 * Retrace run from its sources) a file is always a module: a script would only cost.
 */
import { Script } from "node:vm";
import { pathToFileURL } from "node:url";
import { sha256 } from "../../canonical/index.js";
import { codeCache, importNative, type CodeCacheStore } from "../../runtime/index.js";
import type { ScriptPlan } from "./script-plan.js";

const AsyncFunction = (async () => undefined).constructor as new (parameter: string, body: string) => unknown;

/**
 * The file's script, compiled; undefined when its body does not parse as a function body of its
 * own (a brace too many would close the script's function and run what follows outside it) or
 * the script does not compile: the file is then a module's, and Node says what is wrong with it.
 */
export function compileScript(path: string, plan: ScriptPlan): Script | undefined {
  const store = codeCache();
  if (!store) return undefined;
  const options = { filename: pathToFileURL(path).href, columnOffset: -plan.prefix };
  const place = `eval-${sha256(path).slice(0, 16)}-`;
  const text = `${place}${sha256(`${process.version}\0${process.arch}\0${plan.source}`).slice(0, 32)}`;
  const name = `${text}${CODE}`;
  try {
    // An entry is written only for a text that passed the check below: its name is the text's hash.
    const cachedData = store.read(name);
    if (cachedData) {
      const script = new Script(plan.source, { ...options, cachedData });
      if (!script.cachedDataRejected) {
        usedHere.add(name);
        return script;
      }
    } else if (store.read(`${text}${SEEN}`) === undefined) {
      // The text's first run: a module's, and the text noted for the next (see above).
      if (store.write(`${text}${SEEN}`, Buffer.alloc(0))) {
        store.forget(place, `${text}${SEEN}`);
        store.bound("eval-", SEEN, { most: MOST_NOTES });
      }
      return undefined;
    }
    // Parsed as a function body on its own, as the Function constructor parses one; never run.
    new AsyncFunction(plan.parameter, plan.body);
    const script = new Script(plan.source, options);
    keepAtExit(store, script, name, place);
    return script;
  } catch {
    // A SyntaxError, or code made from strings refused (--disallow-code-generation-from-strings).
    return undefined;
  }
}

/**
 * Runs the compiled file: its imports first, as a module's are linked — a name a module does
 * not export is Node's own SyntaxError, before any of the file runs — then its code.
 */
export async function runScript(script: Script, plan: ScriptPlan): Promise<void> {
  const modules = await Promise.all(plan.imports.map((entry) => importNative(entry.from) as Promise<Record<string, unknown>>));
  for (const [index, entry] of plan.imports.entries()) {
    for (const [name] of entry.names) {
      if (!(name in (modules[index] as object))) throw new SyntaxError(`The requested module '${entry.specifier}' does not provide an export named '${name}'`);
    }
  }
  const run = script.runInThisContext() as (modules: readonly unknown[]) => Promise<void>;
  await run(modules);
}

/**
 * How many eval files keep their compiled code (and how many bytes of it), and how many texts
 * are noted as seen: those last used, so that suites written to fresh temp folders (a test
 * suite's fixtures, a generated benchmark) do not pile up entries until the runtime's week-old
 * tidying reaches them, and notes do not push out code. A suite of more files than this
 * compiles the rest again on every run (a bound of 64 cost a 100-file suite 1.10x the time), so
 * it is far above a suite's size; the anchor workload's 1,000 cases are an entry of 0.85 MB
 * (RETRACE_CODE_CACHE_EVAL_ENTRIES and RETRACE_CODE_CACHE_EVAL_BYTES change the bounds, for tests).
 */
const MOST_ENTRIES = setting(process.env.RETRACE_CODE_CACHE_EVAL_ENTRIES, 1024);
const MOST_BYTES = setting(process.env.RETRACE_CODE_CACHE_EVAL_BYTES, 64 * 1024 * 1024);
const MOST_NOTES = 1024;
/** An entry's compiled code, and a text's note that it ran once: both .v8, which the runtime's tidying reaches. */
const CODE = ".code.v8";
const SEEN = ".seen.v8";

/** A bound from the environment: a positive whole number, or the default (a bound of NaN or 0 would empty the folder of every project's entries). */
function setting(given: string | undefined, fallback: number): number {
  const value = Number(given);
  return given !== undefined && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/** The entries this process read: kept first by the bound, as a relatime mount may leave their times as they were. */
const usedHere = new Set<string>();

/** The scripts whose compiled code is kept at exit, by eval file: a file loaded again keeps its last script only. */
const toKeep = new Map<string, { script: Script; name: string }>();

/** Keeps the script's compiled code when the process exits: by then it holds every function the suite ran. */
function keepAtExit(store: CodeCacheStore, script: Script, name: string, place: string): void {
  if (toKeep.size === 0) process.once("exit", () => keepAll(store));
  toKeep.set(place, { script, name });
}

function keepAll(store: CodeCacheStore): void {
  for (const [place, { script, name }] of toKeep) {
    try {
      const data = script.createCachedData();
      // An entry over the bound would be written only to be removed, and its note with it.
      if (data.length <= MOST_BYTES && store.write(name, data)) {
        store.forget(place, name);
        usedHere.add(name);
      }
    } catch {
      // The cache is a saving, never a failure.
    }
  }
  toKeep.clear();
  store.bound("eval-", CODE, { most: MOST_ENTRIES, bytes: MOST_BYTES, usedHere });
}
