/**
 * List prices in US dollars per million tokens, as data. Compiled on PRICES_AS_OF from the
 * providers' published pricing and model pages; standard (not batch, not priority) tier, and
 * for models with long-context surcharges (Sonnet 4/4.5 over 200K, GPT-5.4 over 270K) the
 * base band only.
 *
 * Only names whose price we could confirm are here: a dated snapshot is listed under its family
 * only when its price is the family's (gpt-4o-2024-05-13 is not: it kept the launch price).
 * Left out on purpose, to be priced through overrides: Claude Haiku 5.5 (priced by prompt
 * length), Claude Sonnet 5.5 and Opus 5.5 (cache-read prices recently changed and not
 * confirmed), Claude Fable/Mythos, and OpenAI's -pro models.
 *
 * Anthropic cache *writes* (1.25x input) have no field in Usage; they are priced as input.
 */
export const PRICES_AS_OF = "2026-11-29";

export interface ModelPrice {
  input: number;
  /** Input tokens served from the prompt cache; the input price when absent. */
  cachedInput?: number;
  output: number;
}

interface PriceEntry extends ModelPrice {
  /** The canonical name first, then snapshots and aliases that bill the same. */
  names: readonly string[];
}

const ENTRIES: readonly PriceEntry[] = [
  // OpenAI
  { names: ["gpt-5.4"], input: 2.5, cachedInput: 0.25, output: 15 },
  { names: ["gpt-5.2", "gpt-5.2-2025-12-11"], input: 1.75, cachedInput: 0.175, output: 14 },
  { names: ["gpt-5.1", "gpt-5.1-2025-11-13"], input: 1.25, cachedInput: 0.125, output: 10 },
  { names: ["gpt-5", "gpt-5-2025-08-07"], input: 1.25, cachedInput: 0.125, output: 10 },
  { names: ["gpt-5-mini", "gpt-5-mini-2025-08-07"], input: 0.25, cachedInput: 0.025, output: 2 },
  { names: ["gpt-5-nano", "gpt-5-nano-2025-08-07"], input: 0.05, cachedInput: 0.005, output: 0.4 },
  { names: ["gpt-4.1", "gpt-4.1-2025-04-14"], input: 2, cachedInput: 0.5, output: 8 },
  { names: ["gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"], input: 0.4, cachedInput: 0.1, output: 1.6 },
  { names: ["gpt-4.1-nano", "gpt-4.1-nano-2025-04-14"], input: 0.1, cachedInput: 0.025, output: 0.4 },
  { names: ["gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"], input: 2.5, cachedInput: 1.25, output: 10 },
  { names: ["gpt-4o-2024-05-13"], input: 5, output: 15 },
  { names: ["gpt-4o-mini", "gpt-4o-mini-2024-07-18"], input: 0.15, cachedInput: 0.075, output: 0.6 },
  { names: ["o4-mini", "o4-mini-2025-04-16"], input: 1.1, cachedInput: 0.275, output: 4.4 },
  { names: ["o3", "o3-2025-04-16"], input: 2, cachedInput: 0.5, output: 8 },
  { names: ["o3-mini", "o3-mini-2025-01-31"], input: 1.1, cachedInput: 0.55, output: 4.4 },
  { names: ["o1", "o1-2024-12-17"], input: 15, cachedInput: 7.5, output: 60 },
  { names: ["o1-mini", "o1-mini-2024-09-12"], input: 1.1, cachedInput: 0.55, output: 4.4 },
  { names: ["gpt-4-turbo", "gpt-4-turbo-2024-04-09"], input: 10, output: 30 },
  { names: ["gpt-3.5-turbo", "gpt-3.5-turbo-0125"], input: 0.5, output: 1.5 },
  // Anthropic
  { names: ["claude-opus-5"], input: 5, cachedInput: 0.5, output: 25 },
  { names: ["claude-sonnet-5"], input: 2, cachedInput: 0.2, output: 10 },
  { names: ["claude-opus-4-8"], input: 5, cachedInput: 0.5, output: 25 },
  { names: ["claude-opus-4-7"], input: 5, cachedInput: 0.5, output: 25 },
  { names: ["claude-opus-4-6"], input: 5, cachedInput: 0.5, output: 25 },
  { names: ["claude-sonnet-4-6"], input: 3, cachedInput: 0.3, output: 15 },
  { names: ["claude-opus-4-5", "claude-opus-4-5-20251101"], input: 5, cachedInput: 0.5, output: 25 },
  { names: ["claude-haiku-4-5", "claude-haiku-4-5-20251001"], input: 1, cachedInput: 0.1, output: 5 },
  { names: ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"], input: 3, cachedInput: 0.3, output: 15 },
  { names: ["claude-opus-4-1", "claude-opus-4-1-20250805"], input: 15, cachedInput: 1.5, output: 75 },
  { names: ["claude-opus-4-0", "claude-opus-4-20250514"], input: 15, cachedInput: 1.5, output: 75 },
  { names: ["claude-sonnet-4-0", "claude-sonnet-4-20250514"], input: 3, cachedInput: 0.3, output: 15 },
  { names: ["claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219"], input: 3, cachedInput: 0.3, output: 15 },
  {
    names: ["claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20240620"],
    input: 3,
    cachedInput: 0.3,
    output: 15,
  },
  { names: ["claude-3-5-haiku-latest", "claude-3-5-haiku-20241022"], input: 0.8, cachedInput: 0.08, output: 4 },
  { names: ["claude-3-opus-latest", "claude-3-opus-20240229"], input: 15, cachedInput: 1.5, output: 75 },
  { names: ["claude-3-haiku-20240307"], input: 0.25, cachedInput: 0.03, output: 1.25 },
];

function priceOfEntry({ input, cachedInput, output }: PriceEntry): ModelPrice {
  return cachedInput === undefined ? { input, output } : { input, cachedInput, output };
}

/** Every known name (canonical, snapshot or alias) → its price. */
export const PRICE_TABLE: ReadonlyMap<string, ModelPrice> = new Map(
  ENTRIES.flatMap((entry) => entry.names.map((name) => [name, Object.freeze(priceOfEntry(entry))] as const)),
);
