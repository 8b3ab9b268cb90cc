/** GAIA: the data layout, the harness on the eval engine, and (pure) the official scorer. */
export * from "./scoring/index.js";
export { loadGaia, findMetadata, taskPrompt, type GaiaData, type GaiaTask, type Attachment } from "./dataset.js";
export { runGaia, summariseGaia, type GaiaModel, type GaiaResult, type GaiaSummary, type LevelScore, type GaiaRunOptions } from "./harness.js";
