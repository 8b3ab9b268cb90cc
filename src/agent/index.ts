export { AgentRun, agentDigest, type TurnOptions } from "./agent-run.js";
export type { TurnOutcome } from "./definition.js";
export type { AgentDefinition, Sampling, GuardrailChecks } from "./definition.js";
export { subAgentTool, isSubAgent, subAgentDefinition, childRunId, judgeLink, type SubAgentTool } from "./sub-agent.js";
export type { CallGate, CallVerdict, PreparedCall } from "./gate.js";
export { buildRequest } from "./model-step.js";
export { augmentTurn, augmentedSystem, recordedRetriever, renderTemplate, renderPassages, DEFAULT_AUGMENT_TEMPLATE, NO_PASSAGES, type AugmentRetrieval } from "./augment.js";
export { LazyAbort, type Cancellation } from "./cancellation.js";
