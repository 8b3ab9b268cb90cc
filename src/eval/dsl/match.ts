/**
 * Matchers for `t.check(value, matcher)`: each names a scorer and what it expects.
 *
 *   t.check(total, match.numeric(391, { tolerance: 0.5 }));
 *   t.check(answer, /4/);                        // a RegExp: the regex scorer
 *   t.check(parsed, { ok: true });               // plain data: the exact scorer
 *   t.check(n, (value) => value > 3);            // a predicate: a boolean, or a score result
 */
import type { Scorer, ScoreResult } from "../../contracts/index.js";

const REF = Symbol.for("retrace.eval.scorer-ref.v1");

export interface ScorerRef {
  readonly [REF]: true;
  readonly scorer: string | Scorer;
  readonly expected: unknown;
  readonly options: Record<string, unknown>;
  /** How the matcher reads in a report line, e.g. `numeric(391)`. */
  readonly label: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a predicate types its own argument
export type Predicate = (value: any) => boolean | ScoreResult | Promise<boolean | ScoreResult>;

export type Matcher = ScorerRef | RegExp | Predicate | null | boolean | number | string | readonly unknown[] | Record<string, unknown>;

export function isScorerRef(value: unknown): value is ScorerRef {
  return value !== null && typeof value === "object" && (value as { [REF]?: unknown })[REF] === true;
}

function brief(value: unknown): string {
  if (value instanceof RegExp) return String(value);
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 59)}…` : text;
  } catch {
    return String(value);
  }
}

export function scorerRef(scorer: string | Scorer, expected: unknown, options: object = {}): ScorerRef {
  const name = typeof scorer === "string" ? scorer : scorer.name;
  return Object.freeze({
    [REF]: true as const,
    scorer,
    expected,
    options: { ...options } as Record<string, unknown>,
    label: expected === undefined ? name : `${name}(${brief(expected)})`,
  });
}

export const match = {
  exact: (expected: unknown, options: { caseSensitive?: boolean; trim?: boolean } = {}) => scorerRef("exact", expected, options),
  includes: (expected: string | readonly unknown[], options: { caseSensitive?: boolean; mode?: "all" | "any" } = {}) =>
    scorerRef("includes", expected, options),
  regex: (pattern: RegExp | string, options: { flags?: string } = {}) => scorerRef("regex", pattern, options),
  jsonSchema: (schema: object, options: { parse?: boolean } = {}) => scorerRef("json-schema", schema, options),
  numeric: (expected: number, options: { tolerance?: number; relative?: number; pick?: "first" | "last" | "only" } = {}) =>
    scorerRef("numeric", expected, options),
  similar: (expected: string, options: { method?: "levenshtein" | "dice" | "jaccard"; min?: number; caseSensitive?: boolean } = {}) =>
    scorerRef("similarity", expected, options),
  /** Any registered scorer by name (or a scorer object), with its expected value and options. */
  scorer: (scorer: string | Scorer, expected?: unknown, options: object = {}) => scorerRef(scorer, expected, options),
};
