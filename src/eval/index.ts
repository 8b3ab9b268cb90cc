/** Evals: `defineEval`, the `t` assertions, scorers, the runner and its report. */
export { defineEval, isEvalCase, collectCases, type EvalSpec, type EvalCase, type ToolMock, type AgentConfigInput } from "./define.js";
export { EvalContext, type AssertOptions, type AssertionResult, type JudgeOptions, type Severity } from "./context.js";
export { match, isScorerRef, scorerRef, type Matcher, type Predicate, type ScorerRef } from "./match.js";
export { defineScorer, passed, failed, skipped, scored, checkResult } from "../scoring/index.js";
export {
  SCORER_CONTRACT_VERSION,
  type Scorer,
  type ScorerInput,
  type ScoreResult,
  type ScoreValue,
  type ScoreSkipped,
  type CaseInfo,
  type JudgeService,
  type JudgeRequest,
  type JudgeAnswer,
  type RunView,
  type ToolCallView,
  type ToolCallStatus,
  type TurnView,
  type RetrievalView,
  type GuardrailView,
} from "../contracts/index.js";
export { viewRun, finishedCalls } from "../journal/index.js";
export { registerScorer, getScorer, hasScorer, listScorers } from "../../scorers/index.js";
export { runEvalSuite, selectCases, shardCases, parseShard, type SuiteOptions, type Shard } from "./suite.js";
export { runCases, type PlannedCase, type RunCasesOptions } from "./runner.js";
export { loadEvalFiles, discoverEvalFiles, type LoadedFile } from "./loader.js";
export { NetworkGuard } from "./network-guard.js";
export { suiteScope, type SuiteScope, type CaseScope } from "./scope.js";
export * from "./report/index.js";
