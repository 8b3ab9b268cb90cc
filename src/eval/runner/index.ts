/** Running eval cases: the pool, one attempt, deadlines, the judge service, and each case's setup. */
export { runCases, DEFAULT_TIMEOUT_MS, type PlannedCase, type RunCasesOptions } from "./pool.js";
export type { CaseCassetteSeam } from "./options.js";
export { SuiteSetup, type EvalMode, type PreparedAgent, type CaseHooks } from "./setup.js";
export { watchUncaught } from "./uncaught.js";
