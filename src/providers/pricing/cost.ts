/** What a model call cost, from its usage and a price per million tokens. */
import type { Usage } from "../../contracts/index.js";
import { PRICE_TABLE, type ModelPrice } from "./table.js";

/** User prices, keyed by model name; they win over the built-in table. */
export type PriceOverrides = Readonly<Record<string, ModelPrice>>;

/**
 * Names are matched exactly after trimming and lower-casing; there is no prefix or family
 * guessing, because a snapshot can bill differently from its family and a wrong price is worse
 * than an unknown one (which reports shows as unknown, never as $0).
 */
export function normaliseModelName(model: string): string {
  return model.trim().toLowerCase();
}

export function priceOf(model: string, overrides: PriceOverrides = {}): ModelPrice | null {
  const name = normaliseModelName(model);
  const override =
    overrides[model] ?? Object.entries(overrides).find(([key]) => normaliseModelName(key) === name)?.[1];
  return override ?? PRICE_TABLE.get(name) ?? null;
}

/** US dollars, or null for a model without a price. */
export function costOf(model: string, usage: Usage, overrides?: PriceOverrides): number | null {
  const price = priceOf(model, overrides);
  if (!price) return null;
  // cachedInputTokens is a subset of inputTokens: price that part at the cache rate only.
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  const micro = uncached * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output;
  return micro / 1_000_000;
}
