/** Scoring one built-in scorer on a hand-built log, for the scorer specs. */
import type { JudgeService, RunEvent, Scorer } from "../../src/contracts/index.js";
import { viewRun } from "../../src/journal/index.js";
import { buildLog } from "./log.js";

/** A result with every field optional, so a test can read `pass` without narrowing first. */
export type AnyResult = { skipped?: boolean; value?: number; pass?: boolean; reason: string; details?: unknown };

export interface ScoreInput<O> {
  events?: RunEvent[];
  value?: unknown;
  expected?: unknown;
  options?: O;
  judge?: JudgeService;
}

function input<O>(scorer: Scorer<O>, given: ScoreInput<O>) {
  const run = viewRun(given.events ?? buildLog([]));
  return scorer.score({
    case: { name: "case", file: undefined, tags: [] },
    run,
    output: run.output,
    value: "value" in given ? given.value : run.output,
    expected: given.expected,
    options: (given.options ?? {}) as O,
    judge: given.judge,
  });
}

export function score<O>(scorer: Scorer<O>, given: ScoreInput<O>): AnyResult {
  const result = input(scorer, given);
  if (result instanceof Promise) throw new Error("an asynchronous scorer: use scoreAsync");
  return result as AnyResult;
}

export async function scoreAsync<O>(scorer: Scorer<O>, given: ScoreInput<O>): Promise<AnyResult> {
  return (await input(scorer, given)) as AnyResult;
}
