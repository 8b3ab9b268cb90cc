/**
 * Compiles an eval file's functions when the file is compiled, not each on its first call.
 * V8 compiles a function lazily: it preparses it with the file, then parses it again, in full,
 * when it is first called. An eval file's functions — a test per case, and its callbacks — are
 * nearly all called, once each, so done lazily each is parsed twice: about a tenth of a
 * 1,000-case `eval-test --mock` (paired runs). Node 20 has no hint for one file (V8's
 * `allFunctionsCalledOnLoad` comment came later), so V8's `lazy` flag is turned off while the
 * file is imported, and back on once the import has settled or timed out. The flag is the
 * whole process's: whatever else compiles in that window (another thread, a timer's callback)
 * is compiled whole too, which costs time, never correctness.
 *
 * Only a file that imports nothing but the running Retrace and Node's built-ins is loaded so
 * (`eager` in its import plan), and those modules are loaded before the flag is turned off: a
 * built-in compiled whole costs several times its lazy compile (node:child_process, ~37 vs
 * ~4 ms), as would any dependency whose functions are mostly never called. A process started
 * with a `lazy` flag of its own (node --no-lazy; Node refuses one in NODE_OPTIONS) keeps it:
 * the flag is not touched.
 */
import { setFlagsFromString } from "node:v8";
import { importNative } from "../../runtime/index.js";

const LAZY_FLAG = /^--(?:no[-_]?)?lazy(?:=|$)/;

/** Whether a process started with these arguments set a `lazy` flag of its own. */
export function ownLazyFlag(execArgv: readonly string[]): boolean {
  return execArgv.some((flag) => LAZY_FLAG.test(flag));
}

let userFlag: boolean | undefined;

/** Turns lazy compiling back on before anything else runs at exit (see below). */
const relazy = (): void => setFlagsFromString("--lazy");

/**
 * `load()`, with every function compiled while it runs compiled at once, after the modules in
 * `first` (URLs or built-in names: what the file imports) have been loaded as usual.
 */
export async function compiledEagerly<T>(load: () => Promise<T>, first: readonly string[]): Promise<T> {
  userFlag ??= ownLazyFlag(process.execArgv);
  if (userFlag) return load();
  // A module that fails to load fails again in the file's own import, which reports it.
  await Promise.all(first.map((module) => importNative(module).catch(() => undefined)));
  // A file whose top level calls process.exit ends the process inside the window: the code
  // cache written at exit (src/runtime/load.cjs) would carry the changed flags, and the next
  // start would reject it. Restored first, the flags are those the process started with.
  process.prependOnceListener("exit", relazy);
  setFlagsFromString("--no-lazy");
  try {
    return await load();
  } finally {
    process.removeListener("exit", relazy);
    setFlagsFromString("--lazy");
  }
}
