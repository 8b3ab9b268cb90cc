/**
 * Self-contained checker cases (the format of ../shared/data/bfcl/checker_cases.dev.jsonl):
 * function docs, possible answer and a model output in one line, scored without a dataset.
 */
import { z } from "zod";
import type { FunctionDoc } from "./check.js";
import { evaluateEntry, type EntryVerdict, type ModelOutput } from "./evaluate-entry.js";
import { asCalls } from "./decode.js";
import { astCheck } from "./check.js";
import { fromJson, pyJsonLoads } from "./python/json.js";
import { PyDict, type PyValue } from "./python/value.js";
import { languageOf, type Language } from "./categories.js";
import { FunctionDocSchema, pyAnswers } from "./schema.js";

const CaseSchema = z.object({
  id: z.string(),
  test_category: z.string(),
  language: z.enum(["python", "java", "javascript"]).optional(),
  model_name: z.string().default("prompt-model"),
  function: z.array(FunctionDocSchema),
  possible_answer: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
  input_mode: z.enum(["prompting_raw", "fc_raw", "decoded"]),
  model_result_raw: z.unknown().optional(),
  model_result_decoded: z.unknown().optional(),
  expected_valid: z.boolean().optional(),
  expected_error_type: z.string().nullable().optional(),
});

export interface CheckerCase {
  id: string;
  category: string;
  language: Language;
  /** `fc-model`: function names were sent with `.` replaced by `_`. */
  underscoreToDot: boolean;
  functions: FunctionDoc[];
  answers: PyDict[] | undefined;
  input: { mode: "prompting_raw"; text: string } | { mode: "fc_raw"; output: Record<string, unknown>[] | string } | { mode: "decoded"; value: PyValue };
  expectedValid: boolean | undefined;
  expectedErrorType: string | null | undefined;
}

/** Parses one line; throws an Error whose message names what is wrong. */
export function parseCheckerCase(line: string): CheckerCase {
  const parsed = CaseSchema.safeParse(JSON.parse(line));
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; "));
  const row = parsed.data;
  const python = pyJsonLoads(line) as PyDict;
  const answers = row.possible_answer ? pyAnswers(python.get("possible_answer") as PyValue, row.id) : undefined;
  let input: CheckerCase["input"];
  if (row.input_mode === "prompting_raw") {
    if (typeof row.model_result_raw !== "string") throw new Error("model_result_raw: a prompting_raw case needs the raw text");
    input = { mode: "prompting_raw", text: row.model_result_raw };
  } else if (row.input_mode === "fc_raw") {
    const raw = row.model_result_raw;
    if (typeof raw !== "string" && !Array.isArray(raw)) throw new Error("model_result_raw: an fc_raw case needs a list of {name: arguments} or a text");
    input = { mode: "fc_raw", output: raw as Record<string, unknown>[] | string };
  } else {
    // Decoded Java/JavaScript values are all strings, so JSON.parse loses nothing here.
    input = { mode: "decoded", value: fromJson(row.model_result_decoded) };
  }
  return {
    id: row.id,
    category: row.test_category,
    language: row.language ?? languageOf(row.test_category),
    underscoreToDot: row.model_name === "fc-model",
    functions: row.function as FunctionDoc[],
    answers,
    input,
    expectedValid: row.expected_valid,
    expectedErrorType: row.expected_error_type,
  };
}

export function checkCase(checkerCase: CheckerCase): EntryVerdict {
  const { input } = checkerCase;
  if (input.mode === "decoded") {
    const calls = asCalls(input.value);
    if (!calls) return { valid: false, errorType: "ast_decoder:decoder_wrong_output_format", error: ["Did not output in the specified format."], decoded: input.value };
    const result = astCheck(checkerCase.functions, calls, checkerCase.answers ?? [], checkerCase.category, {
      language: checkerCase.language,
      underscoreToDot: checkerCase.underscoreToDot,
    });
    return { ...result, decoded: input.value };
  }
  const output: ModelOutput = input.mode === "prompting_raw" ? { mode: "prompt", text: input.text } : { mode: "fc", output: input.output };
  const verdict = evaluateEntry({
    category: checkerCase.category,
    functions: checkerCase.functions,
    ...(checkerCase.answers ? { answers: checkerCase.answers } : {}),
    output,
    language: checkerCase.language,
    underscoreToDot: checkerCase.underscoreToDot,
  });
  return verdict;
}
