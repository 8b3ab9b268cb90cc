/** Retrace's public API: what a user builds agents, runs and evals with. Test doubles live in "retrace-agents/testing". */
export * from "./contracts/index.js";
export * from "./errors/index.js";
export { AgentRun, agentDigest, type AgentDefinition, type TurnOutcome, type CallGate, type CallVerdict, type PreparedCall } from "./agent/index.js";
export { canonicalJson, digest, sha256, type JsonValue } from "./canonical/index.js";
export { buildAgent, loadConfig, parseConfig, type AgentConfig, type LoadedConfig } from "./config/index.js";
export { createRunContext, systemClock, type Clock, type RunContext } from "./context/index.js";
export { fold, parseEvent, serializeEvent, viewRun, finishedCalls, type RunState } from "./journal/index.js";
export { RunLog, SqliteRunStore } from "./store/index.js";
export { requestKey } from "./keys/index.js";
export { createModel } from "./providers/index.js";
export { defineTool, type Tool, type ToolContext } from "./tools/index.js";
// Re-exported so an eval file can define a tool's input without installing zod itself.
export { z } from "zod";
export {
  Retriever,
  Corpus,
  Bm25Index,
  chunkDocument,
  loadDocuments,
  tokenize,
  analyzer,
  type RetrieverOptions,
  type DocumentSource,
  type ChunkingOptions,
  type MetadataFilter,
} from "./retrieval/index.js";
export { formatTrace } from "./trace/index.js";
export { defineScorer, passed, failed, skipped, scored } from "./scoring/index.js";
export {
  defineEval,
  match,
  registerScorer,
  getScorer,
  listScorers,
  EvalContext,
  runEvalSuite,
  EvalReportSchema,
  type EvalSpec,
  type EvalCase,
  type ToolMock,
  type AssertOptions,
  type AssertionResult,
  type Matcher,
  type EvalReport,
} from "./eval/index.js";
