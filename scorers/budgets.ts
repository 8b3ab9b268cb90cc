/**
 * `budgets`: the run stayed within limits on steps, tokens, cost and tool calls. A limit that
 * cannot be checked — cost when the model has no price, tokens when a call reported no usage —
 * makes the whole result skipped (failed, if another limit was exceeded), never a pass because
 * the other limits held.
 */
import { z } from "zod";
import { defineScorer, scored, skipped } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { defineAssertion } from "../src/scoring/index.js";

export interface BudgetOptions {
  maxSteps?: number;
  maxTokens?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** US dollars. */
  maxCost?: number;
  maxToolCalls?: number;
}

export const budgetsScorer = registerBuiltin(
  defineScorer<BudgetOptions>({
    name: "budgets",
    options: {
      maxSteps: z.number().nonnegative(),
      maxTokens: z.number().nonnegative(),
      maxInputTokens: z.number().nonnegative(),
      maxOutputTokens: z.number().nonnegative(),
      maxCost: z.number().nonnegative(),
      maxToolCalls: z.number().nonnegative(),
    },
    description: "The run stayed within its step, token, cost and tool-call budgets (a budget that cannot be checked skips the result, never passes it).",
    score({ run, options }) {
      const checks: { what: string; used: number; limit: number }[] = [];
      // Amounts known only as a lower bound (tokens when some calls reported no usage), or not at all (cost with no price).
      const unknown: { what: string; why: string }[] = [];
      const tokensUnknown = run.usage.unknownCalls ? `${run.usage.unknownCalls} model call(s) reported no usage` : undefined;
      const add = (what: string, used: number | null, limit: number | undefined, lowerBoundBecause?: string) => {
        if (limit === undefined) return;
        if (used === null) unknown.push({ what, why: "the model has no price: set llm.prices" });
        // A lower bound over the limit is over budget all the same; under it, nothing is known.
        else if (lowerBoundBecause && used <= limit) unknown.push({ what, why: lowerBoundBecause });
        else checks.push({ what, used, limit });
      };
      add("steps", run.steps, options.maxSteps);
      add("tokens", run.usage.inputTokens + run.usage.outputTokens, options.maxTokens, tokensUnknown);
      add("input tokens", run.usage.inputTokens, options.maxInputTokens, tokensUnknown);
      add("output tokens", run.usage.outputTokens, options.maxOutputTokens, tokensUnknown);
      add("cost", run.cost, options.maxCost);
      add("tool calls", run.toolCalls.length, options.maxToolCalls);
      const unknownText = unknown.map((item) => `${item.what} (${item.why})`).join(", ");
      const format = (what: string, amount: number) => (what === "cost" ? `$${amount.toFixed(6)}` : String(amount));
      const over = checks.filter((check) => check.used > check.limit);
      const describeAll = (list: typeof checks) => list.map((check) => `${check.what} ${format(check.what, check.used)} of ${format(check.what, check.limit)}`).join(", ");
      const used = { used: Object.fromEntries(checks.map((check) => [check.what, check.used])) };
      if (over.length > 0) {
        // The value falls with the worst overrun: twice the budget scores 0.5.
        const worst = Math.max(...over.map((check) => check.used / Math.max(check.limit, Number.EPSILON)));
        return scored(Math.max(0, Math.min(1, 1 / worst)), false, `over budget: ${describeAll(over)}${unknown.length ? `; unknown: ${unknownText}` : ""}`, used);
      }
      // A budget that cannot be checked is never passed because the others held.
      if (unknown.length > 0) {
        return skipped(`cannot check ${unknownText}${checks.length ? `; within budget: ${describeAll(checks)}` : ""}`, used);
      }
      if (checks.length === 0) return skipped("no budget given");
      return scored(1, true, `within budget: ${describeAll(checks)}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const budgetsAssertions = {
  /** At most `limit` model steps over the run. */
  maxSteps: defineAssertion({ scorer: "budgets", arity: 1, options: {}, call: ([limit]: [limit: number], _options: object) => ({ label: `maxSteps(${limit})`, options: { maxSteps: limit } }) }),
  /** At most `limit` tokens (input + output) over the run. */
  maxTokens: defineAssertion({ scorer: "budgets", arity: 1, options: {}, call: ([limit]: [limit: number], _options: object) => ({ label: `maxTokens(${limit})`, options: { maxTokens: limit } }) }),
  /** At most `limit` tool calls over the run (every requested call counts, blocked and failed ones too). */
  maxToolCalls: defineAssertion({ scorer: "budgets", arity: 1, options: {}, call: ([limit]: [limit: number], _options: object) => ({ label: `maxToolCalls(${limit})`, options: { maxToolCalls: limit } }) }),
  /** At most `limit` US dollars; skipped (not passed) when the model has no price. */
  maxCost: defineAssertion({ scorer: "budgets", arity: 1, options: {}, call: ([limit]: [limit: number], _options: object) => ({ label: `maxCost(${limit})`, options: { maxCost: limit } }) }),
};
