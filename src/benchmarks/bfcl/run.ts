/**
 * Runs BFCL entries against a model: one request per entry, `concurrency` in flight, results
 * in dataset order whatever order they finish in (so a replayed run writes the same file).
 */
import type { LanguageModel } from "../../contracts/index.js";
import { isMultiTurn } from "./categories.js";
import type { BfclEntry } from "./dataset.js";
import { evaluateEntry, type BfclMode } from "./evaluate-entry.js";
import { outputOf, rawOf, requestFor } from "./request.js";
import type { EntryResult } from "./results.js";

export interface RunOptions {
  model: LanguageModel;
  mode: BfclMode;
  concurrency: number;
  onEntryDone?: (done: number, total: number) => void;
}

export async function runBfcl(entries: readonly BfclEntry[], options: RunOptions): Promise<EntryResult[]> {
  const runnable = entries.filter((entry) => !isMultiTurn(entry.category));
  const results: EntryResult[] = new Array(runnable.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < runnable.length) {
      const index = next++;
      results[index] = await runEntry(runnable[index] as BfclEntry, options);
      options.onEntryDone?.(++done, runnable.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, runnable.length)) }, worker));
  return results;
}

async function runEntry(entry: BfclEntry, options: RunOptions): Promise<EntryResult> {
  let response;
  try {
    response = await options.model.generate(requestFor(entry, options.mode, options.model.model), { callIndex: 0, attempt: 1 });
  } catch (error) {
    const message = (error as Error).message;
    return { id: entry.id, category: entry.category, raw: null, decoded: undefined, valid: false, errorType: "model_error", error: [message], modelError: message };
  }
  const output = outputOf(response, options.mode);
  let verdict;
  try {
    verdict = evaluateEntry({ category: entry.category, functions: entry.functions, ...(entry.answers ? { answers: entry.answers } : {}), output });
  } catch (error) {
    // The official checker would stop the whole run here (a KeyError on a type it does not know).
    verdict = { valid: false, errorType: "checker_error", error: [(error as Error).message], decoded: undefined };
  }
  return { id: entry.id, category: entry.category, raw: rawOf(output), decoded: verdict.decoded, valid: verdict.valid, errorType: verdict.errorType, error: verdict.error };
}
