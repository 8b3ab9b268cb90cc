/** GAIA on the eval engine: its data layout and the harness (the rules themselves are in src/benchmarks/gaia). */
export { loadGaia, findMetadata, taskPrompt, type GaiaData, type GaiaTask, type Attachment } from "./dataset.js";
export { runGaia, summariseGaia, type GaiaModel, type GaiaResult, type GaiaSummary, type LevelScore, type GaiaRunOptions } from "./harness.js";
