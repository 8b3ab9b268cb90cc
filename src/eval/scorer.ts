/**
 * The scorer contract, version 1. Every assertion and every metric is a scorer:
 * `(input) → result`, where the result is a value in [0, 1] with a verdict and a reason, or an
 * explicit skip. A skip is its own status: it is left out of means, never counted as 1.0 or 0.5.
 * Scorers are pure over their input; the one that needs a model (llm-judge) asks for it through
 * `input.judge`, which records the call as a run of its own.
 */
import { EvalDefinitionError } from "../errors/index.js";
import type { ErrorInfo } from "../events/index.js";
import type { LanguageModel } from "../providers/model.js";
import type { ScriptInput } from "../providers/scripted/index.js";
import type { RunView } from "./run-view.js";

export const SCORER_CONTRACT_VERSION = 1;

export interface ScoreValue {
  skipped?: false;
  /** 0..1; 1 is best. */
  value: number;
  pass: boolean;
  /** One sentence a reader can act on: what was expected and what the run did. */
  reason: string;
  details?: unknown;
}

export interface ScoreSkipped {
  skipped: true;
  reason: string;
  details?: unknown;
}

export type ScoreResult = ScoreValue | ScoreSkipped;

export interface CaseInfo {
  name: string;
  file: string | undefined;
  tags: readonly string[];
}

export interface JudgeRequest {
  /** Shown in the report and used to name the judge's run. */
  label: string;
  system: string;
  prompt: string;
  /** A model to ask, e.g. a ScriptedModel built in the eval file. */
  model?: LanguageModel;
  /** A mock script (inline, or a path relative to the eval file) answering for the judge under --mock. */
  mock?: string | ScriptInput;
  /** Under --live: an `llm` config section (provider, model, ...) for the judge; default: the agent's. */
  llm?: Record<string, unknown>;
}

export interface JudgeAnswer {
  /** The judge's own run, in the same store as the case's run, linked to it as its parent. */
  runId: string;
  status: "completed" | "failed";
  text: string;
  error: ErrorInfo | undefined;
}

/** How a scorer reaches a model. The eval runner provides it; each call becomes a recorded run. */
export interface JudgeService {
  ask(request: JudgeRequest): Promise<JudgeAnswer>;
}

export interface ScorerInput<Options = Record<string, unknown>> {
  case: CaseInfo;
  run: RunView;
  /** The final answer of the run's last turn. */
  output: string;
  /** The value under test: what `t.check` was given, else the output. */
  value: unknown;
  expected: unknown;
  options: Options;
  judge: JudgeService | undefined;
}

export interface Scorer<Options = any> {
  readonly name: string;
  readonly description: string;
  score(input: ScorerInput<Options>): ScoreResult | Promise<ScoreResult>;
}

const SCORER_NAME = /^[a-z][a-z0-9-]*(?:\/[a-z0-9-]+)*$/;

/** Checks a scorer's shape once, where it is defined, rather than each time it scores. */
export function defineScorer<Options>(scorer: Scorer<Options>): Scorer<Options> {
  if (!SCORER_NAME.test(scorer.name)) {
    throw new EvalDefinitionError(`scorer name "${scorer.name}" must be lower-case words joined by "-" (a "/" may add a namespace)`);
  }
  if (typeof scorer.score !== "function") throw new EvalDefinitionError(`scorer "${scorer.name}" has no score function`);
  return Object.freeze({ ...scorer });
}

export function scored(value: number, pass: boolean, reason: string, details?: unknown): ScoreValue {
  return { value, pass, reason, ...(details !== undefined ? { details } : {}) };
}

export function passed(reason: string, details?: unknown): ScoreValue {
  return scored(1, true, reason, details);
}

export function failed(reason: string, details?: unknown): ScoreValue {
  return scored(0, false, reason, details);
}

export function skipped(reason: string, details?: unknown): ScoreSkipped {
  return { skipped: true, reason, ...(details !== undefined ? { details } : {}) };
}

/** Refuses a result that would make a report lie: a value outside [0, 1], NaN, no reason. */
export function checkResult(result: unknown, scorer: string): ScoreResult {
  if (result === null || typeof result !== "object") {
    throw new EvalDefinitionError(`scorer "${scorer}" returned ${String(result)}; expected { value, pass, reason } or { skipped: true, reason }`);
  }
  const candidate = result as { skipped?: unknown; value?: unknown; pass?: unknown; reason?: unknown; details?: unknown };
  const reason = typeof candidate.reason === "string" ? candidate.reason : "";
  if (candidate.skipped === true) return { skipped: true, reason, ...(candidate.details !== undefined ? { details: candidate.details } : {}) };
  if (typeof candidate.value !== "number" || Number.isNaN(candidate.value) || candidate.value < 0 || candidate.value > 1) {
    throw new EvalDefinitionError(`scorer "${scorer}" returned value ${String(candidate.value)}; a score is a number from 0 to 1`);
  }
  if (typeof candidate.pass !== "boolean") throw new EvalDefinitionError(`scorer "${scorer}" returned no boolean "pass"`);
  return scored(candidate.value, candidate.pass, reason, candidate.details);
}
