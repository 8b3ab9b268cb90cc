/**
 * `retrace-agents/vitest`: matchers over a run's log, for teams that keep agent evals in vitest.
 *
 *   import "retrace-agents/vitest";               // registers the matchers with vitest's expect
 *   const run = AgentRun.start(agent, { store, context });
 *   await run.send("What is 2 + 2?");
 *   expect(run).toHaveCompleted();
 *   expect(run).toHaveCalledTool("calculator", { expression: "2 + 2" });
 *   expect(run).not.toHaveCalledTool("write_file");
 *
 * A matcher accepts an AgentRun, an eval case's `t`, a RunView (`viewRun(events)`), or the
 * events themselves. Each is a built-in scorer underneath, so it reads the log exactly as
 * `t.calledTool` does: only a call that finished counts as called.
 */
import * as vitest from "vitest";
import { bindVitest } from "./bind.js";
import type { RetraceMatchers } from "./matchers.js";

declare module "vitest" {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- vitest's own declaration
  interface Matchers<T = any> extends RetraceMatchers<T> {}
}

export const { useCassette } = bindVitest(vitest);
export { retraceMatchers, toRunView, viewRun, type RunLike, type RetraceMatchers, type RunView } from "./matchers.js";
export { cassettePathFor, type UseCassetteOptions } from "./use-cassette.js";
