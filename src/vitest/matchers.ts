/** The matchers of `retrace-agents/vitest`, with no import of vitest: `bindVitest` hands them to its `expect`. */
import type { BlockReason, RunEvent, RunView, ScoreResult } from "../contracts/index.js";
import { viewRun } from "../journal/index.js";
// Through the registry and the scorers' own assertion sugar, never a concrete scorer module.
import { builtinAssertions, getScorer, type BudgetOptions, type ExpectedCall, type RetrievedChunkOptions } from "../../scorers/index.js";

/** Anything a matcher can read a run from. */
export type RunLike = readonly RunEvent[] | RunView | { readonly events: readonly RunEvent[] } | { readonly log: { readonly events: readonly RunEvent[] } };

export function toRunView(received: unknown): RunView {
  if (Array.isArray(received)) return viewRun(received as RunEvent[]);
  if (received !== null && typeof received === "object") {
    const candidate = received as { toolCalls?: unknown; events?: unknown; log?: { events?: unknown }; run?: unknown };
    const view = candidate.run as { toolCalls?: unknown; events?: unknown } | undefined;
    // An eval case's t carries its view as `run`.
    if (view && typeof view === "object" && Array.isArray(view.toolCalls) && Array.isArray(view.events)) return view as RunView;
    if (Array.isArray(candidate.toolCalls) && Array.isArray(candidate.events) && "turns" in candidate) return candidate as RunView;
    if (candidate.log && Array.isArray(candidate.log.events)) return viewRun(candidate.log.events as RunEvent[]);
    if (Array.isArray(candidate.events)) return viewRun(candidate.events as RunEvent[]);
  }
  throw new TypeError("expected a run: an AgentRun, an eval case's t, a RunView, or an array of run events");
}

export interface MatcherResult {
  pass: boolean;
  message: () => string;
  /** Shown by vitest as a diff against `actual`, when the scorer compared two values. */
  expected?: unknown;
  actual?: unknown;
}

function judge(name: string, received: unknown, options: object, expected?: unknown, value?: unknown): MatcherResult {
  const scorer = getScorer(name);
  const run = toRunView(received);
  const result = scorer.score({
    case: { name: "vitest", file: undefined, tags: [] },
    run,
    output: run.output,
    value: value === undefined ? run.output : value,
    expected,
    options,
    judge: undefined,
  }) as ScoreResult;
  if (result instanceof Promise) throw new TypeError(`${scorer.name} is asynchronous; use it through t.judge in an eval case`);
  // A check that could not be made is neither a pass nor a failure, so `.not` must not turn it
  // into a pass: it throws, whichever way the matcher was asked.
  if (result.skipped) throw new Error(`${scorer.name} could not decide (neither a pass nor a failure): ${result.reason}`);
  const compared = result.details !== null && typeof result.details === "object" && "expected" in result.details && "actual" in result.details;
  return {
    pass: result.pass,
    message: () => (result.pass ? `expected not, but: ${result.reason}` : result.reason),
    ...(compared ? { expected: (result.details as { expected: unknown }).expected, actual: (result.details as { actual: unknown }).actual } : {}),
  };
}

export const retraceMatchers = {
  /** The tool ran to completion (with arguments matching `args`, when given). */
  toHaveCalledTool(received: unknown, name: string, args?: Record<string, unknown>): MatcherResult {
    return judge("tool-called", received, { tool: name, ...(args ? { args } : {}) });
  },
  /** Governance blocked a call of the tool (for `reason`, when given). */
  toHaveBlockedTool(received: unknown, name: string, reason?: BlockReason): MatcherResult {
    return judge("tool-blocked", received, { tool: name, ...(reason ? { reason } : {}) });
  },
  toHaveCompleted(received: unknown): MatcherResult {
    return judge("run-status", received, { status: "completed" });
  },
  toHaveFailed(received: unknown, code?: string): MatcherResult {
    return judge("run-status", received, { status: "failed", ...(code ? { code } : {}) });
  },
  toHaveToolSequence(received: unknown, calls: readonly ExpectedCall[], options: { ordered?: boolean; allowExtra?: boolean } = {}): MatcherResult {
    // t.toolSequence's own mapping of ordered / allowExtra to the scorer's order.
    const { ordered, allowExtra } = options;
    const call = builtinAssertions.toolSequence.call([calls], { ...(ordered !== undefined ? { ordered } : {}), ...(allowExtra !== undefined ? { allowExtra } : {}) });
    return judge(builtinAssertions.toolSequence.scorer, received, call.options, call.expected);
  },
  toHaveUsedNoTools(received: unknown): MatcherResult {
    return judge("no-tools", received, {});
  },
  toHaveRetrievedChunk(received: unknown, match: string | RetrievedChunkOptions): MatcherResult {
    return judge("retrieved-chunk", received, typeof match === "string" ? { text: match } : match);
  },
  /** A guardrail fired with this action ("block", "warn", "redact"), optionally by a rule. */
  toHaveTriggeredGuardrail(received: unknown, action: "block" | "warn" | "redact", rule?: string): MatcherResult {
    return judge("guardrail", received, { action, ...(rule ? { rule } : {}) });
  },
  /** The final output contains the text, or matches the RegExp. */
  toHaveOutput(received: unknown, expected: string | RegExp): MatcherResult {
    return expected instanceof RegExp ? judge("regex", received, {}, expected) : judge("includes", received, {}, expected);
  },
  toBeWithinBudget(received: unknown, budget: BudgetOptions): MatcherResult {
    return judge("budgets", received, budget);
  },
};

export interface RetraceMatchers<R = unknown> {
  toHaveCalledTool(name: string, args?: Record<string, unknown>): R;
  toHaveBlockedTool(name: string, reason?: BlockReason): R;
  toHaveCompleted(): R;
  toHaveFailed(code?: string): R;
  toHaveToolSequence(calls: readonly ExpectedCall[], options?: { ordered?: boolean; allowExtra?: boolean }): R;
  toHaveUsedNoTools(): R;
  toHaveRetrievedChunk(match: string | RetrievedChunkOptions): R;
  toHaveTriggeredGuardrail(action: "block" | "warn" | "redact", rule?: string): R;
  toHaveOutput(expected: string | RegExp): R;
  toBeWithinBudget(budget: BudgetOptions): R;
}

export { viewRun, type RunView };
