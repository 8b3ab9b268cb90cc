/** Per-entry results and the scores BFCL reports, computed as eval_runner_helper.py does. */
import { pyJsonDumps } from "./prompt.js";
import { PyDict, PyTuple, type PyValue } from "./python/value.js";

/** A Python value as plain JSON (ints beyond 2^53 as strings): for tools and reports, not for checking. */
export function pyToJson(value: PyValue): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(pyToJson);
  if (value instanceof PyTuple) return value.items.map(pyToJson);
  if (value instanceof PyDict) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), pyToJson(v)]));
  return value;
}

export interface EntryResult {
  id: string;
  category: string;
  /** The model's raw output: its text (prompting) or its calls as `{name: arguments}` (FC). */
  raw: unknown;
  /** Decoded calls as Python's json.dumps writes them (`10.0` stays a float); null when decoding failed. */
  decoded: PyValue | undefined;
  valid: boolean;
  errorType: string | null;
  error: string[];
  /** A model call that failed (the entry then counts as wrong). */
  modelError?: string;
}

/** One results-file line. Written by hand so that decoded floats keep their `.0`. */
export function resultLine(result: EntryResult): string {
  const head = JSON.stringify({ id: result.id, category: result.category, valid: result.valid, error_type: result.errorType });
  const raw = JSON.stringify(result.raw ?? null);
  const decoded = result.decoded === undefined ? "null" : pyJsonDumps(result.decoded);
  const tail = JSON.stringify({ error: result.error, ...(result.modelError ? { model_error: result.modelError } : {}) });
  return `${head.slice(0, -1)},"raw":${raw},"decoded":${decoded},${tail.slice(1)}`;
}

export interface CategoryScore {
  category: string;
  correct: number;
  total: number;
  /** correct / total; null when nothing ran. */
  accuracy: number | null;
}

export interface Summary {
  /** Means of the categories that ran; null when none of a group's categories ran. */
  nonLiveAst: number | null;
  nonLiveSimple: number | null;
  live: number | null;
  irrelevance: number | null;
  relevance: number | null;
  /**
   * V4 overall: 10 % non-live, 10 % live, 10 % irrelevance, 30 % multi-turn, 40 % agentic, where
   * a category that did not run counts as 0 (as the official aggregation does) — so an
   * AST-only run can reach at most 30 %.
   */
  overallV4: number;
}

export function categoryScores(results: readonly EntryResult[], categories: readonly string[]): CategoryScore[] {
  return categories.map((category) => {
    const mine = results.filter((result) => result.category === category);
    const correct = mine.filter((result) => result.valid).length;
    return { category, correct, total: mine.length, accuracy: mine.length ? correct / mine.length : null };
  });
}

export function summarise(scores: readonly CategoryScore[]): Summary {
  const get = (name: string): CategoryScore | undefined => scores.find((score) => score.category === name && score.total > 0);
  const accuracy = (name: string): number => get(name)?.accuracy ?? 0;
  const any = (names: string[]): boolean => names.some((name) => get(name) !== undefined);
  // calculate_unweighted_accuracy: a missing category counts as 0 in the mean.
  const unweighted = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  const simpleNames = ["simple_python", "simple_java", "simple_javascript"];
  const simple = unweighted(simpleNames.map(accuracy));
  const nonLive = unweighted([simple, accuracy("multiple"), accuracy("parallel"), accuracy("parallel_multiple")]);
  const liveNames = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"];
  const liveScores = liveNames.map(get).filter((score): score is CategoryScore => score !== undefined);
  const liveTotal = liveScores.reduce((sum, score) => sum + score.total, 0);
  const live = liveTotal ? liveScores.reduce((sum, score) => sum + score.correct, 0) / liveTotal : null;
  const irrelevance = unweighted([accuracy("irrelevance"), accuracy("live_irrelevance")]);
  return {
    nonLiveAst: any([...simpleNames, "multiple", "parallel", "parallel_multiple"]) ? nonLive : null,
    nonLiveSimple: any(simpleNames) ? simple : null,
    live,
    irrelevance: any(["irrelevance", "live_irrelevance"]) ? irrelevance : null,
    relevance: get("live_relevance")?.accuracy ?? null,
    overallV4: (10 * nonLive + 10 * (live ?? 0) + 10 * irrelevance) / 100,
  };
}
