/** What an eval file writes: `defineEval`, the `t` a case body gets, and the matchers of `t.check`. */
export { defineEval, isEvalCase, isTool, collectCases, placeOf, type EvalSpec, type EvalCase, type ToolMock, type AgentConfigInput } from "./define.js";
export {
  EvalContext,
  evaluateAssertions,
  unsettledAssertions,
  sendsInFlight,
  closeContext,
  type CaseHost,
  type AssertOptions,
  type AssertionResult,
  type JudgeOptions,
  type JudgeResult,
  type Severity,
} from "./context.js";
export { match, isScorerRef, scorerRef, type Matcher, type Predicate, type ScorerRef } from "./match.js";
