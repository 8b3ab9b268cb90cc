export { AgentConfigSchema, LlmConfigSchema, ToolEntrySchema, type AgentConfig, type LlmConfig, type ToolEntry } from "./schema.js";
export { loadConfig, parseConfig, type LoadedConfig } from "./load.js";
export { interpolateEnv, MAX_EXPANDED_VALUE_CHARS, MAX_EXPANDED_TOTAL_CHARS } from "./interpolate.js";
export { buildAgent, configCost, type BuildOptions } from "./build-agent.js";
