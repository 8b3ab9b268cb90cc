/**
 * The contracts: types and zod schemas that everything else is written against — the normalised
 * model, the events of a run log, the mock-script format, the store interface, the scorer
 * contract and the run view. They import nothing but zod and each other.
 */
export * from "./model.js";
export * from "./events.js";
export * from "./script.js";
export type * from "./store.js";
export * from "./scorer.js";
export type * from "./run-view.js";
export type * from "./assertion.js";
