/** Benchmarks run through the eval engine: each entry an eval case, scored by the benchmark's scorer. */
export { runBfcl, type RunOptions, type RunOutcome, type ModelChoice } from "./bfcl.js";
