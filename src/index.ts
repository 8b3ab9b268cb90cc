/** Retrace's public API. Test doubles live in "retrace-agents/testing". */
export { AgentRun, agentDigest, type AgentDefinition, type TurnOutcome, type CallGate, type CallVerdict, type PreparedCall } from "./agent/index.js";
export { canonicalJson, digest, sha256, type JsonValue } from "./canonical/index.js";
export { buildAgent, loadConfig, parseConfig, type AgentConfig, type LoadedConfig } from "./config/index.js";
export { createRunContext, manualClock, sequentialIds, systemClock, type Clock, type RunContext } from "./context/index.js";
export * from "./errors/index.js";
export * from "./events/index.js";
export { fold, MemoryRunStore, RunLog, SqliteRunStore, type RunState, type RunStore, type RunSummary } from "./journal/index.js";
export {
  createModel,
  requestKey,
  ScriptedModel,
  type LanguageModel,
  type LlmRequest,
  type LlmResponse,
  type Message,
  type ToolCall,
  type Usage,
} from "./providers/index.js";
export { defineTool, type Tool, type ToolContext } from "./tools/index.js";
export { formatTrace } from "./trace/index.js";
export {
  defineEval,
  match,
  defineScorer,
  registerScorer,
  getScorer,
  listScorers,
  viewRun,
  passed,
  failed,
  skipped,
  scored,
  EvalContext,
  runEvalSuite,
  EvalReportSchema,
  type EvalSpec,
  type EvalCase,
  type ToolMock,
  type AssertOptions,
  type AssertionResult,
  type Matcher,
  type Scorer,
  type ScorerInput,
  type ScoreResult,
  type RunView,
  type ToolCallView,
  type TurnView,
  type EvalReport,
} from "./eval/index.js";
