/**
 * The scorer contract, version 1. Every assertion and every metric is a scorer:
 * `(input) → result`, where the result is a value in [0, 1] with a verdict and a reason, or an
 * explicit skip. A skip is its own status: it is left out of means, never counted as 1.0 or 0.5.
 * Scorers are pure over their input; the one that needs a model (llm-judge) asks for it through
 * `input.judge`, which records the call as a run of its own.
 */
import type { ErrorInfo } from "./events.js";
import type { LanguageModel } from "./model.js";
import type { RunView } from "./run-view.js";
import type { ScriptInput } from "./script.js";
import type { OptionShape } from "./assertion.js";

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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry holds scorers of every option type; each scorer types its own
export interface Scorer<Options = any> {
  readonly name: string;
  readonly description: string;
  /**
   * The options it accepts, each with its schema. When given, options it does not name are
   * refused where the scorer is used (`match.*`, `t.judge`), with a suggestion.
   */
  readonly options?: OptionShape<Options>;
  /** A problem with the expected value that would make the check vacuous (e.g. an empty text), or undefined. */
  readonly checkExpected?: (expected: unknown) => string | undefined;
  score(input: ScorerInput<Options>): ScoreResult | Promise<ScoreResult>;
}
