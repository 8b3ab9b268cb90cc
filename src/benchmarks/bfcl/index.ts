/**
 * BFCL (Berkeley Function Calling Leaderboard), scored as the official checker scores it: the
 * pure part — decoders, checker, prompts, tools, scores — that never touches the file system
 * or the network. The loader and the harness are in src/eval/benchmarks/bfcl.
 */
export {
  AST_CATEGORIES, RELEVANCE_CATEGORIES, MULTI_TURN_CATEGORIES, SUPPORTED_CATEGORIES, ALL_CATEGORIES,
  v4Category, isMultiTurn, isRelevanceCategory, languageOf, categoryOfId, type Language,
} from "./categories.js";
export { astCheck, simpleFunctionCheck, standardizeString, type FunctionDoc, type ParameterDoc, type CheckResult, type CheckOptions } from "./check.js";
export { decodePrompting, decodeFc, asCalls, isEmptyOutput, DecodeError, type FcOutput, type DecodedCall } from "./decode.js";
export { evaluateEntry, type EntryVerdict, type EntryToCheck, type ModelOutput, type BfclMode } from "./evaluate-entry.js";
export { parseCheckerCase, checkCase, type CheckerCase } from "./cases.js";
export { parseQuestions, parseAnswers, attachAnswers, categoryOfFile, type BfclEntry, type DataProblem, type DataFile } from "./dataset.js";
export { systemPrompt, withLanguageHints, pyJsonDumps } from "./prompt.js";
export { toolsFor, mangleName, GORILLA_TO_OPENAPI } from "./tools.js";
export { requestFor, outputOf, rawOf } from "./request.js";
export { categoryScores, summarise, resultLine, pyToJson, type EntryResult, type CategoryScore, type Summary } from "./results.js";
export { pyJsonLoads, fromJson } from "./python/json.js";
export { pyAnswers } from "./schema.js";
export { pyAnswersOf } from "./answers.js";
export { PyDict, PyTuple, pyEq, pyRepr, type PyValue } from "./python/value.js";
