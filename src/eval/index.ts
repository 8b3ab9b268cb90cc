/** Evals: `defineEval`, the `t` assertions, scorers, the runner and its report. */
export {
  defineEval,
  isEvalCase,
  collectCases,
  EvalContext,
  match,
  isScorerRef,
  scorerRef,
  type EvalSpec,
  type EvalCase,
  type ToolMock,
  type AgentConfigInput,
  type AssertOptions,
  type AssertionResult,
  type JudgeOptions,
  type JudgeResult,
  type Severity,
  type Matcher,
  type Predicate,
  type ScorerRef,
} from "./dsl/index.js";
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
export { runCases, watchUncaught, type PlannedCase, type RunCasesOptions } from "./runner/index.js";
export { loadEvalFiles, discoverEvalFiles, type LoadedFile } from "./loader/index.js";
export { caseCassettes, type CaseCassettes, type CaseCassetteOptions } from "./cassettes.js";
export { NetworkGuard, suiteScope, type SuiteScope, type CaseScope } from "../sandbox/index.js";
export * from "./report/index.js";
