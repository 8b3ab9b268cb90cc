/**
 * The one entry of the package's bundled runtime (scripts/bundle.mjs): the public API, the test
 * doubles, the CLI and the vitest binding, so that every way into the package — the `retrace`
 * command, `import` or `require` of "retrace-agents", `/testing` and `/vitest` — shares one
 * copy of Retrace (one set of error classes, one scorer registry).
 *
 * Each part is evaluated when it is first asked for (`retrace --help` runs the CLI's top level
 * only, not every schema of the library), and synchronously, so the package's faces need no
 * top-level await and `require("retrace-agents")` works. The `require` calls are the bundler's:
 * it turns each into the synchronous start of that part; this file is never run unbundled.
 */
import type { VitestApi } from "./vitest/bind.js";

type Api = typeof import("./index.js");
type Testing = typeof import("./testing/index.js");

let apiPart: Api | undefined;
let testingPart: Testing | undefined;

export const api = (): Api => (apiPart ??= require("./index.js") as Api);
export const testing = (): Testing => (testingPart ??= require("./testing/index.js") as Testing);

export function main(argv: string[]): Promise<number> {
  return (require("./cli/main.js") as typeof import("./cli/main.js")).main(argv);
}

/** What `retrace-agents/vitest` exports, once vitest's own functions are handed over. */
export function vitest(hooks: VitestApi) {
  const { bindVitest } = require("./vitest/bind.js") as typeof import("./vitest/bind.js");
  const { retraceMatchers, toRunView, viewRun } = require("./vitest/matchers.js") as typeof import("./vitest/matchers.js");
  const { cassettePathFor } = require("./vitest/use-cassette.js") as typeof import("./vitest/use-cassette.js");
  return { ...bindVitest(hooks), retraceMatchers, toRunView, viewRun, cassettePathFor };
}

/** The runtime's loader hands over its code cache (src/runtime/load.cjs), which eval files compiled as scripts use too. */
export { useCodeCache } from "./runtime/code-cache.js";
