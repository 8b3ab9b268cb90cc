/**
 * The one entry of the package's bundled runtime (scripts/bundle.mjs): the public API, the test
 * doubles, the CLI and the vitest binding, so that every way into the package — the `retrace`
 * command, `import "retrace-agents"`, `/testing` and `/vitest` — shares one copy of Retrace (one
 * set of error classes, one scorer registry). Each part is evaluated when it is first asked
 * for: `retrace --help` runs the CLI's top level only, not every schema of the library.
 */
import type { VitestApi } from "./vitest/bind.js";

export const api = () => import("./index.js");
export const testing = () => import("./testing/index.js");

export async function main(argv: string[]): Promise<number> {
  return (await import("./cli/main.js")).main(argv);
}

/** What `retrace-agents/vitest` exports, once vitest's own functions are handed over. */
export async function vitest(hooks: VitestApi) {
  const [{ bindVitest }, { retraceMatchers, toRunView, viewRun }, { cassettePathFor }] = await Promise.all([
    import("./vitest/bind.js"),
    import("./vitest/matchers.js"),
    import("./vitest/use-cassette.js"),
  ]);
  return { ...bindVitest(hooks), retraceMatchers, toRunView, viewRun, cassettePathFor };
}
