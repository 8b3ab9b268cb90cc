/** `run-status`: how the run's last turn ended: completed, failed (optionally with an error code) or waiting. */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { clip } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface RunStatusOptions {
  status: "completed" | "failed" | "waiting";
  /** For failed: the error code it must have (max_steps, provider_rate_limited, script_exhausted, ...). */
  code?: string;
}

export const runStatusScorer = registerBuiltin(
  defineScorer<RunStatusOptions>({
    name: "run-status",
    description: "The run's last turn ended with the expected status (and error code).",
    score({ run, options }) {
      const error = run.error ? ` (${run.error.code}: ${clip(run.error.message, 160)})` : "";
      if (run.status !== options.status) {
        const actual = run.status === "new" ? "never started a turn" : run.status === "running" ? "did not finish its turn" : run.status;
        return failed(`expected the run to be ${options.status}; it ${run.status === "new" || run.status === "running" ? actual : `was ${actual}`}${error}`);
      }
      if (options.code !== undefined && run.error?.code !== options.code) {
        return failed(`the run failed with ${run.error?.code ?? "no error code"}, expected ${options.code}${error}`);
      }
      return passed(`the run was ${run.status}${error}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const runStatusAssertions = {
  completed: defineAssertion({
    scorer: "run-status",
    arity: 0,
    options: {},
    call: (_: [], _options: object) => ({ label: "completed()", options: { status: "completed" } }),
  }),
  /** The run paused for a decision (an approval) and waits for it. */
  waiting: defineAssertion({
    scorer: "run-status",
    arity: 0,
    options: {},
    call: (_: [], _options: object) => ({ label: "waiting()", options: { status: "waiting" } }),
  }),
  /** The last turn failed (optionally with an error code such as max_steps or provider_rate_limited). */
  failed: defineAssertion({
    scorer: "run-status",
    arity: 0,
    options: { code: z.string().min(1) },
    call: (_: [], options: { code?: string }) => ({
      label: `failed(${options.code ? brief(options.code) : ""})`,
      options: { status: "failed", ...(options.code ? { code: options.code } : {}) },
    }),
  }),
};
