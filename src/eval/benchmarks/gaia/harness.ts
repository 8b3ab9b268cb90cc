/**
 * Runs GAIA tasks through the eval engine: each task is an eval case whose agent gets GAIA's
 * system prompt and the question, and whose one assertion is the official scorer. The harness
 * asks the model alone (no tools): a baseline; an agent with tools uses the `gaia-exact` scorer
 * in its own eval cases.
 */
import { gaiaExactScorer } from "../../../../scorers/index.js";
import type { RunStore } from "../../../contracts/index.js";
import { collectCases, defineEval, type AgentConfigInput } from "../../dsl/index.js";
import { runCases, type PlannedCase } from "../../runner/index.js";
import { taskPrompt, type GaiaData, type GaiaTask } from "./dataset.js";
import { GAIA_SYSTEM_PROMPT, type GaiaBranch } from "../../../benchmarks/gaia/index.js";

/** The model to ask: a configured provider, or recorded replies by task id (`scripted:<file>`, for tests). */
export type GaiaModel = { kind: "live"; llm: AgentConfigInput["llm"] } | { kind: "scripted"; replies: ReadonlyMap<string, string>; file: string };

export interface GaiaResult {
  task_id: string;
  level: number;
  /** unscored: the test split, whose answers are private. */
  status: "correct" | "wrong" | "error" | "unscored";
  reply: string | null;
  answer: string | null;
  ground_truth: string;
  branch: GaiaBranch | null;
  error?: string;
}

export interface LevelScore {
  level: number;
  entries: number;
  correct: number;
  accuracy: number | null;
}

export interface GaiaSummary {
  split: string;
  entries: number;
  correct: number;
  errors: number;
  unscored: number;
  /** Correct over scored entries (errors count as wrong, as on the leaderboard); null when none was scored. */
  accuracy: number | null;
  levels: LevelScore[];
  /** Rows of the data file that could not be used, as "file:line: message". */
  dataProblems: string[];
}

export interface GaiaRunOptions {
  model: GaiaModel;
  concurrency?: number;
  timeoutMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
  store?: RunStore;
  onProgress?: (done: number, total: number) => void;
}

interface Observed {
  reply?: string;
  answer?: string | null;
  branch?: GaiaBranch;
  correct?: boolean;
}

function agentFor(model: GaiaModel): AgentConfigInput {
  return {
    name: "gaia",
    system_prompt: GAIA_SYSTEM_PROMPT,
    max_steps: 1,
    llm: model.kind === "live" ? model.llm : { provider: "scripted" },
  };
}

export async function runGaia(data: GaiaData, options: GaiaRunOptions): Promise<GaiaResult[]> {
  const observed = new Map<string, Observed>();
  const missing = new Map<string, string>();
  const config = agentFor(options.model);
  const cases = await collectCases(undefined, async () => {
    for (const task of data.tasks) {
      const seen: Observed = {};
      observed.set(task.taskId, seen);
      const reply = options.model.kind === "scripted" ? options.model.replies.get(task.taskId) : undefined;
      if (options.model.kind === "scripted" && reply === undefined) {
        missing.set(task.taskId, `${options.model.file} has no reply for task ${task.taskId}`);
        continue;
      }
      defineEval({
        name: task.taskId,
        config,
        ...(reply !== undefined ? { mock: { responses: [{ text: reply }] } } : {}),
        test: async (t) => {
          await t.send(taskPrompt(task));
          seen.reply = t.reply;
          if (!scorable(task)) return;
          const result = await t.judge(gaiaExactScorer, { expected: task.finalAnswer, label: "gaia-exact" });
          const details = result.details as { answer: string | null; branch: GaiaBranch } | undefined;
          seen.answer = details?.answer ?? null;
          seen.branch = details?.branch;
          seen.correct = result.pass;
        },
      });
    }
  });
  const planned: PlannedCase[] = cases.map((definition) => ({ id: `gaia > ${definition.name}`, file: "gaia", case: definition }));
  const results = await runCases(planned, {
    mode: options.model.kind === "scripted" ? "mock" : "live",
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.onProgress ? { onCaseDone: (_result, done, total) => options.onProgress?.(done, total) } : {}),
  });
  const errorsById = new Map<string, string>();
  for (const result of results) {
    const errors = result.attempts.flatMap((attempt) => attempt.errors);
    if (result.status === "error" || (errors.length > 0 && observed.get(result.name)?.correct === undefined)) {
      errorsById.set(result.name, errors.join("; ") || result.status);
    }
  }
  return data.tasks.map((task) => resultOf(task, observed.get(task.taskId) ?? {}, missing.get(task.taskId) ?? errorsById.get(task.taskId)));
}

const scorable = (task: GaiaTask): boolean => task.finalAnswer !== "?";

function resultOf(task: GaiaTask, seen: Observed, error: string | undefined): GaiaResult {
  const status = error !== undefined ? "error" : !scorable(task) ? "unscored" : seen.correct ? "correct" : "wrong";
  // Keys in a fixed order, and nothing that varies between runs (ids, times): a replayed run writes the same bytes.
  return {
    task_id: task.taskId,
    level: task.level,
    status,
    answer: seen.answer ?? null,
    ground_truth: task.finalAnswer,
    branch: seen.branch ?? null,
    reply: seen.reply ?? null,
    ...(error !== undefined ? { error } : {}),
  };
}

export function summariseGaia(data: GaiaData, results: readonly GaiaResult[]): GaiaSummary {
  const scored = results.filter((result) => result.status !== "unscored");
  const correct = scored.filter((result) => result.status === "correct").length;
  const levels = [...new Set(results.map((result) => result.level))].sort((a, b) => a - b).map((level): LevelScore => {
    const mine = scored.filter((result) => result.level === level);
    const right = mine.filter((result) => result.status === "correct").length;
    return { level, entries: mine.length, correct: right, accuracy: mine.length ? right / mine.length : null };
  });
  return {
    split: data.split,
    entries: results.length,
    correct,
    errors: results.filter((result) => result.status === "error").length,
    unscored: results.length - scored.length,
    accuracy: scored.length ? correct / scored.length : null,
    levels,
    dataProblems: data.problems.map((problem) => problem.describe()),
  };
}
