/**
 * The built-in scorers. Importing this module registers every one of them; each file adds
 * itself to the registry, so a new scorer is a new file plus one line here.
 */
export { registerScorer, getScorer, hasScorer, listScorers } from "./registry.js";
export { exactScorer, type ExactOptions } from "./exact.js";
export { includesScorer, type IncludesOptions } from "./includes.js";
export { regexScorer, type RegexOptions } from "./regex.js";
export { jsonSchemaScorer, type JsonSchemaOptions } from "./json-schema.js";
export { toolTrajectoryScorer, type ToolTrajectoryOptions, type ExpectedCall } from "./tool-trajectory.js";
export { numericScorer, readNumber, type NumericOptions } from "./numeric.js";
export { similarityScorer, levenshteinSimilarity, diceSimilarity, jaccardSimilarity, type SimilarityOptions } from "./similarity.js";
export { budgetsScorer, type BudgetOptions } from "./budgets.js";
export { llmJudgeScorer, parseJudgement, JUDGE_SYSTEM_PROMPT, type LlmJudgeOptions } from "./llm-judge.js";
export { toolCalledScorer, type ToolCalledOptions } from "./tool-called.js";
export { toolNotCalledScorer, type ToolNotCalledOptions } from "./tool-not-called.js";
export { toolBlockedScorer, type ToolBlockedOptions } from "./tool-blocked.js";
export { noToolsScorer } from "./no-tools.js";
export { runStatusScorer, type RunStatusOptions } from "./run-status.js";
export { retrievedChunkScorer, type RetrievedChunkOptions } from "./retrieved-chunk.js";
export { rankingScorer, rankingMetric, RANKING_METRICS, type RankingOptions, type RankingMetric } from "./ranking.js";
export { citationsScorer, uncitedFacts, type CitationsOptions } from "./citations.js";
export { abstainsScorer, isAbstention, type AbstainsOptions } from "./abstains.js";
export { citationsIn, passagesOf, type Judgement } from "./retrieval-support.js";
export { guardrailScorer, type GuardrailOptions } from "./guardrail.js";
export { gaiaExactScorer, type GaiaExactOptions } from "./gaia-exact.js";
export { builtinAssertions, type BuiltinAssertions } from "./assertions.js";
