/**
 * `budgets`: the run stayed within limits on steps, tokens, cost and tool calls. A cost limit on
 * a run whose price is unknown cannot be judged: that part is skipped, never passed as $0.
 */
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
    description: "The run stayed within its step, token, cost and tool-call budgets (unknown cost is skipped, not passed).",
    score({ run, options }) {
      const checks: { what: string; used: number; limit: number }[] = [];
      const unknown: string[] = [];
      const add = (what: string, used: number | null, limit: number | undefined) => {
        if (limit === undefined) return;
        if (used === null) unknown.push(what);
        else checks.push({ what, used, limit });
      };
      add("steps", run.steps, options.maxSteps);
      add("tokens", run.usage.inputTokens + run.usage.outputTokens, options.maxTokens);
      add("input tokens", run.usage.inputTokens, options.maxInputTokens);
      add("output tokens", run.usage.outputTokens, options.maxOutputTokens);
      add("cost", run.cost, options.maxCost);
      add("tool calls", run.toolCalls.length, options.maxToolCalls);
      const unknownNote = unknown.length ? `; ${unknown.join(", ")} unknown (the model has no price: set llm.prices)` : "";
      if (checks.length === 0) {
        return skipped(unknown.length ? `cannot check ${unknown.join(", ")}: unknown (the model has no price: set llm.prices)` : "no budget given");
      }
      const format = (what: string, amount: number) => (what === "cost" ? `$${amount.toFixed(6)}` : String(amount));
      const over = checks.filter((check) => check.used > check.limit);
      const describeAll = (list: typeof checks) => list.map((check) => `${check.what} ${format(check.what, check.used)} of ${format(check.what, check.limit)}`).join(", ");
      if (over.length === 0) return scored(1, true, `within budget: ${describeAll(checks)}${unknownNote}`);
      // The value falls with the worst overrun: twice the budget scores 0.5.
      const worst = Math.max(...over.map((check) => check.used / Math.max(check.limit, Number.EPSILON)));
      return scored(Math.max(0, Math.min(1, 1 / worst)), false, `over budget: ${describeAll(over)}${unknownNote}`, {
        used: Object.fromEntries(checks.map((check) => [check.what, check.used])),
      });
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const budgetsAssertions = {
  /** At most `limit` model steps over the run. */
  maxSteps: defineAssertion({ scorer: "budgets", arity: 1, call: ([limit]: [limit: number], _options: object) => ({ label: `maxSteps(${limit})`, options: { maxSteps: limit } }) }),
  /** At most `limit` tokens (input + output) over the run. */
  maxTokens: defineAssertion({ scorer: "budgets", arity: 1, call: ([limit]: [limit: number], _options: object) => ({ label: `maxTokens(${limit})`, options: { maxTokens: limit } }) }),
  /** At most `limit` US dollars; skipped (not passed) when the model has no price. */
  maxCost: defineAssertion({ scorer: "budgets", arity: 1, call: ([limit]: [limit: number], _options: object) => ({ label: `maxCost(${limit})`, options: { maxCost: limit } }) }),
};
