import { describe, expect, it } from "vitest";
import { costOf, PRICE_TABLE, PRICES_AS_OF, priceOf } from "../../src/providers/pricing/index.js";

const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0) => ({ inputTokens, outputTokens, cachedInputTokens });

describe("pricing", () => {
  it("prices a known model per million tokens", () => {
    // gpt-4o: $2.50 in, $10 out.
    expect(costOf("gpt-4o", usage(1_000_000, 1_000_000))).toBeCloseTo(12.5, 10);
    expect(costOf("claude-sonnet-4-5", usage(2_000, 500))).toBeCloseTo(0.006 + 0.0075, 10);
  });

  it("prices cached input tokens at the cache rate and only the rest at the input rate", () => {
    // gpt-4.1: $2 in, $0.50 cached, $8 out.
    expect(costOf("gpt-4.1", usage(1_000_000, 0, 400_000))).toBeCloseTo(0.6 * 2 + 0.4 * 0.5, 10);
    // claude-haiku-4-5: $1 in, $0.10 cached.
    expect(costOf("claude-haiku-4-5", usage(1_000_000, 0, 1_000_000))).toBeCloseTo(0.1, 10);
  });

  it("falls back to the input price for cached tokens when a model has no cache price", () => {
    // gpt-4o-2024-05-13 kept its launch price and had no cache discount.
    expect(costOf("gpt-4o-2024-05-13", usage(1_000_000, 0, 500_000))).toBeCloseTo(5, 10);
  });

  it("knows dated snapshots and aliases only where they bill like the family", () => {
    expect(priceOf("gpt-4o-2024-11-20")).toEqual(priceOf("gpt-4o"));
    expect(priceOf("gpt-4o-2024-05-13")).not.toEqual(priceOf("gpt-4o"));
    expect(priceOf("gpt-4.1-nano-2025-04-14")).toEqual(priceOf("gpt-4.1-nano"));
    expect(priceOf("claude-sonnet-4-5-20250929")).toEqual(priceOf("claude-sonnet-4-5"));
    expect(priceOf("claude-3-5-haiku-latest")).toEqual({ input: 0.8, cachedInput: 0.08, output: 4 });
  });

  it("matches names case- and space-insensitively, but never by prefix", () => {
    expect(priceOf("  GPT-4o-Mini ")).toEqual(priceOf("gpt-4o-mini"));
    expect(priceOf("gpt-4o-2099-01-01")).toBeNull();
    expect(priceOf("openai/gpt-4o")).toBeNull();
  });

  it("returns null, never 0, for an unknown model", () => {
    expect(costOf("my-finetune", usage(1000, 1000))).toBeNull();
    expect(costOf("my-finetune", usage(0, 0))).toBeNull();
  });

  it("lets overrides price unknown models and replace built-in prices", () => {
    const overrides = { "my-finetune": { input: 1, output: 2 }, "GPT-4o": { input: 1, cachedInput: 0.1, output: 1 } };
    expect(costOf("my-finetune", usage(1_000_000, 1_000_000, 500_000), overrides)).toBeCloseTo(3, 10);
    expect(costOf("gpt-4o", usage(1_000_000, 0, 1_000_000), overrides)).toBeCloseTo(0.1, 10);
    expect(costOf("gpt-4o", usage(1_000_000, 0))).toBeCloseTo(2.5, 10);
  });

  it("is dated, and every price in it is a positive number", () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [name, price] of PRICE_TABLE) {
      expect(name).toBe(name.toLowerCase());
      expect(price.input).toBeGreaterThan(0);
      expect(price.output).toBeGreaterThan(0);
      if (price.cachedInput !== undefined) expect(price.cachedInput).toBeLessThanOrEqual(price.input);
    }
  });
});
