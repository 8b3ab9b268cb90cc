/** Helpers that scorers are written with: the shape check and the result builders. */
import type { Scorer, ScoreResult, ScoreSkipped, ScoreValue } from "../contracts/index.js";
import { EvalDefinitionError } from "../errors/index.js";

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
