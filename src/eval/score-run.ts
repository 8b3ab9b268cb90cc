/**
 * Applies eval cases' assertions to a run that already happened — a bundle's, or one in a
 * store — without running anything: the case body sees the recorded log through `t`, and
 * `t.send` fails, since nothing may be asked of a model.
 */
import { AgentRun, LazyAbort } from "../agent/index.js";
import { createRunContext } from "../context/index.js";
import type { LanguageModel, RunStore } from "../contracts/index.js";
import { errorMessage, RunError } from "../errors/index.js";
import { closeContext, EvalContext, evaluateAssertions, type AssertionResult, type EvalCase } from "./dsl/index.js";

export interface ScoredCase {
  name: string;
  status: "passed" | "failed";
  score: number | null;
  assertions: AssertionResult[];
  errors: string[];
}

const NOTHING_RUNS: LanguageModel = {
  provider: "score",
  model: "none",
  generate: () => Promise.reject(new RunError("score_runs_nothing", "retrace score runs nothing: a case body that calls t.send cannot score a recorded run")),
};

/** `store` should be a copy: nothing is written to it unless a case body sends, which then fails. */
export async function scoreRecordedRun(store: RunStore, runId: string, cases: readonly EvalCase[]): Promise<ScoredCase[]> {
  if (store.lastSeq(runId) === 0) throw new RunError("run_not_found", "no such run to score", { runId });
  const results: ScoredCase[] = [];
  for (const spec of cases) {
    const errors: string[] = [];
    const agent = { name: spec.name, maxSteps: 1, model: NOTHING_RUNS, tools: [] };
    const run = AgentRun.open(agent, runId, { store, context: createRunContext() });
    const t = new EvalContext({
      run,
      store,
      cancellation: new LazyAbort(),
      caseInfo: { name: spec.name, file: spec.file ?? "", tags: spec.tags ?? [] },
      judge: undefined,
      workspace: undefined,
      fail: (message) => errors.push(message),
    });
    try {
      await spec.test(t);
    } catch (error) {
      errors.push(`the test body threw: ${errorMessage(error)}`);
    }
    const assertions = await evaluateAssertions(t, []);
    closeContext(t);
    if (assertions.length === 0) errors.push("the case recorded no assertions");
    const values = assertions.flatMap((assertion) => (assertion.value === null ? [] : [assertion.value]));
    const failed = errors.length > 0 || assertions.some((assertion) => assertion.severity === "gate" && assertion.status === "failed");
    results.push({ name: spec.name, status: failed ? "failed" : "passed", score: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null, assertions, errors });
  }
  return results;
}
