export { AgentRun, agentDigest, type TurnOutcome, type TurnOptions } from "./agent-run.js";
export type { AgentDefinition, Sampling } from "./definition.js";
export type { CallGate, CallVerdict, PreparedCall } from "./gate.js";
export { buildRequest } from "./model-step.js";
