/**
 * The one entry of the package's bundled runtime (scripts/bundle.mjs): the public API, the test
 * doubles, the CLI and the vitest binding, so that every way into the package — the `retrace`
 * command, `import "retrace-agents"`, `/testing` and `/vitest` — shares one copy of Retrace (one
 * set of error classes, one scorer registry).
 */
export * as api from "./index.js";
export * as testing from "./testing/index.js";
export { main } from "./cli/main.js";
export { bindVitest } from "./vitest/bind.js";

import { retraceMatchers, toRunView, viewRun } from "./vitest/matchers.js";
import { cassettePathFor } from "./vitest/use-cassette.js";
/** What `retrace-agents/vitest` exports besides `useCassette` (which needs vitest's hooks). */
export const vitest = { retraceMatchers, toRunView, viewRun, cassettePathFor };
