/**
 * One entry's verdict, as `_evaluate_single_ast_entry` and `_evaluate_single_relevance_entry`
 * (eval_checker/eval_runner.py) give it: decode, check the format, then the AST checker; or,
 * for (ir)relevance, only whether the output holds a call.
 */
import { astCheck, type FunctionDoc } from "./check.js";
import { asCalls, decodeFc, decodePrompting, isEmptyOutput, type FcOutput } from "./decode.js";
import { isRelevanceCategory, languageOf, type Language } from "./categories.js";
import type { PyDict, PyValue } from "./python/value.js";

export type BfclMode = "fc" | "prompt";

export type ModelOutput = { mode: "prompt"; text: string } | { mode: "fc"; output: FcOutput };

export interface EntryVerdict {
  valid: boolean;
  errorType: string | null;
  error: string[];
  /** What the decoder made of the output; undefined when decoding failed. */
  decoded: PyValue | undefined;
}

export interface EntryToCheck {
  category: string;
  functions: readonly FunctionDoc[];
  /** The ground truth; absent for the (ir)relevance categories. */
  answers?: readonly PyDict[];
  output: ModelOutput;
  /** Default: the category's (`simple_java` is Java). */
  language?: Language;
  /** Default: true in FC mode, where the tools were sent with `.` replaced by `_`. */
  underscoreToDot?: boolean;
}

function decode(output: ModelOutput, language: Language): PyValue {
  if (output.mode === "fc") return decodeFc(output.output);
  return decodePrompting(output.text, language);
}

export function evaluateEntry(entry: EntryToCheck): EntryVerdict {
  if (isRelevanceCategory(entry.category)) return relevance(entry);
  let decoded: PyValue;
  try {
    decoded = decode(entry.output, entry.language ?? languageOf(entry.category));
  } catch (error) {
    return { valid: false, errorType: "ast_decoder:decoder_failed", error: [(error as Error).message], decoded: undefined };
  }
  const calls = asCalls(decoded);
  if (!calls) {
    return { valid: false, errorType: "ast_decoder:decoder_wrong_output_format", error: ["Did not output in the specified format."], decoded };
  }
  if (!entry.answers) throw new Error(`an ${entry.category} entry needs its possible answer`);
  const result = astCheck(entry.functions, calls, entry.answers, entry.category, {
    language: entry.language ?? languageOf(entry.category),
    underscoreToDot: entry.underscoreToDot ?? entry.output.mode === "fc",
  });
  return { valid: result.valid, errorType: result.errorType, error: result.error, decoded };
}

function relevance(entry: EntryToCheck): EntryVerdict {
  let decoded: PyValue | undefined;
  let containsCall: boolean;
  let decodeError = "";
  try {
    // The relevance decoder is always the Python one, whatever the category's language.
    decoded = decode(entry.output, "python");
    containsCall = !isEmptyOutput(decoded);
  } catch (error) {
    containsCall = false;
    decodeError = (error as Error).message;
  }
  const irrelevance = entry.category.includes("irrelevance");
  if (irrelevance ? !containsCall : containsCall) return { valid: true, errorType: null, error: [], decoded };
  return irrelevance
    ? { valid: false, errorType: "irrelevance_error:decoder_success", error: ["Valid syntax. Successfully decode AST when it should not."], decoded }
    : { valid: false, errorType: "relevance_error:decoder_failed", error: [`Invalid syntax. Failed to decode AST when it should have. ${decodeError}`], decoded };
}
