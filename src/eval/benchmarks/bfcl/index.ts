/** BFCL's edges: reading the data folder, and running entries through the eval engine. The rules are in src/benchmarks/bfcl. */
export { loadBfclData, type BfclDataset } from "./load.js";
export { runBfcl, type RunOptions, type RunOutcome } from "./harness.js";
