/** The effectful side of BFCL: reading the data folder, and running entries against a model. */
export { loadBfclData, type BfclDataset } from "./load.js";
export { runBfcl, type RunOptions, type RunOutcome, type ModelChoice } from "./run.js";
