/**
 * `bfcl-ast`: the value is a BFCL model output that the official AST checker accepts for the
 * expected entry. Usable from any eval case: the value is the prompting-mode text, or the FC
 * calls (`[{name, arguments}]` as the run recorded them, or `[{name: argumentsJson}]`).
 * Expected: `{ category, function, ground_truth }`. Give `ground_truth` as JSON text to keep
 * Python's int/float distinction (`5.0`); as an object, an integral number reads as an int.
 */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { evaluateEntry, fromJson, pyAnswersOf, type FunctionDoc, type ModelOutput } from "../src/benchmarks/bfcl/index.js";
import { registerBuiltin } from "./registry.js";

export interface BfclAstOptions {
  /** How the value was produced. Default: "prompt" for text, "fc" for a list of calls. */
  mode?: "fc" | "prompt";
}

const ExpectedSchema = z.object({
  category: z.string(),
  function: z.array(z.looseObject({ name: z.string() })),
  ground_truth: z.union([z.string(), z.array(z.unknown())]).optional(),
});

function outputOf(value: unknown, mode: "fc" | "prompt" | undefined): ModelOutput | string {
  if (typeof value === "string") return (mode ?? "prompt") === "prompt" ? { mode: "prompt", text: value } : { mode: "fc", output: value };
  if (!Array.isArray(value)) return "the value is neither the model's text nor a list of calls";
  const calls = value.map((call: unknown) => {
    if (call && typeof call === "object" && "name" in call && "arguments" in call) {
      const { name, arguments: args } = call as { name: unknown; arguments: unknown };
      return { [String(name)]: typeof args === "string" ? args : JSON.stringify(args) };
    }
    return call as Record<string, unknown>;
  });
  return { mode: "fc", output: calls };
}

export const bfclAstScorer = registerBuiltin(
  defineScorer<BfclAstOptions>({
    name: "bfcl-ast",
    options: { mode: z.enum(["fc", "prompt"]) },
    description: "The output passes BFCL's official AST check for the expected entry (decoder, checker and error types as the leaderboard's).",
    checkExpected: (expected) => {
      const parsed = ExpectedSchema.safeParse(expected);
      return parsed.success ? undefined : `bfcl-ast needs { category, function, ground_truth }: ${parsed.error.issues[0]?.message ?? "invalid"}`;
    },
    score({ value, expected, options }) {
      const entry = ExpectedSchema.parse(expected);
      const output = outputOf(value, options.mode);
      if (typeof output === "string") return failed(output);
      const truth = entry.ground_truth;
      const answers = truth === undefined ? undefined : pyAnswersOf(typeof truth === "string" ? truth : fromJson(truth));
      const verdict = evaluateEntry({ category: entry.category, functions: entry.function as unknown as FunctionDoc[], ...(answers ? { answers } : {}), output });
      if (verdict.valid) return passed(`BFCL's checker accepts the output for ${entry.category}`);
      return failed(`BFCL's checker rejects it: ${verdict.errorType} (${verdict.error.join(" ")})`, { errorType: verdict.errorType, error: verdict.error });
    },
  }),
);
