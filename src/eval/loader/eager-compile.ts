/**
 * Compiles an eval file's functions when the file is compiled, not each on its first call.
 * V8 compiles a function lazily: it preparses it with the file, then parses it again, in full,
 * when it is first called. An eval file's functions — a test per case, and its callbacks — are
 * nearly all called, once each, so done lazily each is parsed twice: about a tenth of a
 * 1,000-case `eval-test --mock` (paired runs). Node 20 has no hint for one file (V8's
 * `allFunctionsCalledOnLoad` comment came later), so V8's `lazy` flag is turned off for the
 * file's import alone, and back on once the import has settled or timed out.
 *
 * Only a file that imports nothing but the running Retrace and Node's built-ins is loaded so
 * (`eager` in its import plan): no other module is compiled while the flag is off, so no
 * dependency's functions are compiled only never to be called. A process started with a
 * `lazy` flag of its own (node --no-lazy, NODE_OPTIONS) keeps it: the flag is not touched.
 */
import { setFlagsFromString } from "node:v8";

const LAZY_FLAG = /^--(?:no[-_]?)?lazy(?:=|$)/;

/** Whether the process was started with a `lazy` flag of its own. */
function ownLazyFlag(): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return given.some((flag) => LAZY_FLAG.test(flag));
}

let userFlag: boolean | undefined;

/** `load()`, with every function compiled while it runs compiled at once. */
export async function compiledEagerly<T>(load: () => Promise<T>): Promise<T> {
  userFlag ??= ownLazyFlag();
  if (userFlag) return load();
  setFlagsFromString("--no-lazy");
  try {
    return await load();
  } finally {
    setFlagsFromString("--lazy");
  }
}
