/**
 * Runs BFCL entries through the eval engine (here, not in src/benchmarks: the engine reaches the
 * scorers, and the bfcl-ast scorer reaches src/benchmarks, so a harness there would close a circle): each entry is an eval case (an agent of one step
 * whose system prompt is BFCL's, or whose tools are the entry's functions), run by `runCases`
 * with its concurrency, and scored by the `bfcl-ast` scorer. The agent sends the request BFCL
 * sends — `{system, messages: [user], tools}` — and the verdict is made from the model's first
 * response as the run recorded it. Results come back in dataset order whatever order the cases
 * finish in, so a replayed run writes the same file.
 */
import { z } from "zod";
import type { LlmResponse } from "../../../contracts/index.js";
import { collectCases, defineEval, match, type AgentConfigInput, type EvalSpec } from "../../dsl/index.js";
import { runCases } from "../../runner/index.js";
import type { AnyTool } from "../../../tools/index.js";
import type { ModelChoice } from "../model-choice.js";
import { evaluateEntry, isMultiTurn, outputOf, rawOf, requestFor, type BfclEntry, type BfclMode, type DataProblem, type EntryResult } from "../../../benchmarks/bfcl/index.js";

export interface RunOptions {
  model: ModelChoice;
  mode: BfclMode;
  concurrency: number;
  env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds one entry may take, retries included. Default 120 s. */
  timeoutMs?: number;
  onEntryDone?: (done: number, total: number) => void;
}

export interface RunOutcome {
  results: EntryResult[];
  /** Entries the engine cannot put to the model as BFCL does (a first turn other than [system], user). */
  problems: DataProblem[];
}

export async function runBfcl(entries: readonly BfclEntry[], options: RunOptions): Promise<RunOutcome> {
  const problems: DataProblem[] = [];
  const runnable = entries.filter((entry) => {
    if (isMultiTurn(entry.category)) return false;
    const roles = (entry.turns[0] ?? []).map((message) => message.role);
    const shape = roles.join(",");
    if (shape === "user" || shape === "system,user") return true;
    problems.push({ file: entry.file, line: entry.line, message: `${entry.id}: a first turn of [${roles.join(", ")}] cannot be sent as one user message; the entry is not run` });
    return false;
  });
  const results = new Map<string, EntryResult>();
  const specs = runnable.map((entry) => caseFor(entry, options, (result) => results.set(entry.id, result)));
  const planned = (await collectCases(undefined, async () => specs.forEach((spec) => defineEval(spec)))).map((definition) => ({
    id: `bfcl > ${definition.name}`,
    file: "bfcl",
    case: definition,
  }));
  await runCases(planned, {
    mode: options.model.kind === "scripted" ? "mock" : "live",
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs ?? 120_000,
    env: options.env,
    ...(options.onEntryDone ? { onCaseDone: (_result: unknown, done: number, total: number) => options.onEntryDone?.(done, total) } : {}),
  });
  return {
    results: runnable.map(
      (entry) =>
        results.get(entry.id) ?? { id: entry.id, category: entry.category, raw: null, decoded: undefined, valid: false, errorType: "model_error", error: ["the case ended before the model answered"], modelError: "no answer" },
    ),
    problems,
  };
}

function caseFor(entry: BfclEntry, options: RunOptions, done: (result: EntryResult) => void): EvalSpec {
  const request = requestFor(entry, options.mode, "bfcl");
  const user = request.messages.at(-1)?.content ?? "";
  const llm = options.model.kind === "scripted" ? { provider: "openai" as const } : { ...options.model.llm, max_retries: 2 };
  const config: AgentConfigInput = {
    name: "bfcl",
    // One model call: BFCL scores the first answer, and a tool call is never run on.
    max_steps: 1,
    mode: "yolo",
    llm,
    ...(request.system !== undefined ? { system_prompt: request.system } : {}),
    // The raw output is what is scored; redacting credential-like text from it would change the verdict.
    guardrails: { output: { redact_secrets: false } },
  };
  const tools: Record<string, AnyTool> = {};
  // Any arguments pass: BFCL checks them itself, from the raw text, after the run.
  for (const spec of request.tools) tools[spec.name] = { name: spec.name, description: spec.description, parameters: spec.parameters, input: z.any(), idempotent: true, risk: "safe", readOnly: true, requiresApproval: false, run: () => "not run: BFCL scores the call, not its result" } as unknown as AnyTool;
  return {
    name: entry.id,
    config,
    ...(options.model.kind === "scripted" ? { mock: options.model.file, allowUnused: true } : {}),
    ...(request.tools.length ? { tools } : {}),
    test: async (t) => {
      const outcome = await t.send(user);
      const finished = t.run.events.find((event) => event.type === "llm.finished") as { response: LlmResponse } | undefined;
      if (!finished) {
        const message = outcome.error?.message ?? "the model gave no answer";
        done({ id: entry.id, category: entry.category, raw: null, decoded: undefined, valid: false, errorType: "model_error", error: [message], modelError: message });
        return;
      }
      const output = outputOf(finished.response, options.mode);
      let verdict;
      try {
        verdict = evaluateEntry({ category: entry.category, functions: entry.functions, ...(entry.answers ? { answers: entry.answers } : {}), output });
      } catch (error) {
        // The official checker would stop the whole run here (a KeyError on a type it does not know).
        verdict = { valid: false, errorType: "checker_error", error: [(error as Error).message], decoded: undefined };
      }
      done({ id: entry.id, category: entry.category, raw: rawOf(output), decoded: verdict.decoded, valid: verdict.valid, errorType: verdict.errorType, error: verdict.error });
      const value = output.mode === "prompt" ? output.text : output.output;
      t.check(value, match.scorer("bfcl-ast", { category: entry.category, function: entry.functions, ground_truth: entry.answers }, { mode: options.mode }));
    },
  };
}
