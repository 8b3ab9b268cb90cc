/** `--baseline`: what changed since a previous report — regressions first, then score moves. */
import type { CaseResult, Comparison, EvalReport } from "./schema.js";

const SCORE_EPSILON = 0.01;

export function compareReports(baseline: EvalReport, current: readonly CaseResult[], baselineFile: string): Comparison {
  const before = new Map(baseline.cases.map((result) => [result.id, result]));
  const now = new Map(current.map((result) => [result.id, result]));
  const comparison: Comparison = { baseline: baselineFile, regressions: [], fixed: [], added: [], removed: [], scoreChanges: [] };
  for (const result of current) {
    const previous = before.get(result.id);
    if (!previous) {
      comparison.added.push(result.id);
      continue;
    }
    if (previous.status === "passed" && result.status !== "passed" && result.status !== "skipped") {
      comparison.regressions.push({ id: result.id, before: previous.status, after: result.status });
    } else if (previous.status !== "passed" && previous.status !== "skipped" && result.status === "passed") {
      comparison.fixed.push({ id: result.id, before: previous.status, after: result.status });
    }
    if (previous.score !== result.score) {
      const delta = (result.score ?? 0) - (previous.score ?? 0);
      if (previous.score === null || result.score === null || Math.abs(delta) >= SCORE_EPSILON) {
        comparison.scoreChanges.push({ id: result.id, before: previous.score, after: result.score, delta: round(delta) });
      }
    }
  }
  for (const id of before.keys()) if (!now.has(id)) comparison.removed.push(id);
  comparison.scoreChanges.sort((a, b) => a.delta - b.delta || (a.id < b.id ? -1 : 1));
  return comparison;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * Whether a case has the tags and name a run with these options selects (`--tags`, with "!tag"
 * excluding, and `-t`). The tags are parsed and the pattern compiled once, for every case asked about.
 */
export function caseSelector(options: { tags?: readonly string[]; pattern?: string | null | undefined }): (entry: { id: string; name: string; tags: readonly string[] }) => boolean {
  const tags = (options.tags ?? []).flatMap((entry) => entry.split(",")).map((tag) => tag.trim()).filter(Boolean);
  const include = tags.filter((tag) => !tag.startsWith("!"));
  const exclude = tags.filter((tag) => tag.startsWith("!")).map((tag) => tag.slice(1));
  const pattern = options.pattern === undefined || options.pattern === null ? undefined : namePattern(options.pattern);
  return (entry) => {
    if (include.length > 0 && !include.some((tag) => entry.tags.includes(tag))) return false;
    if (exclude.some((tag) => entry.tags.includes(tag))) return false;
    return !pattern || pattern.test(entry.name) || pattern.test(entry.id);
  };
}

/** `-t`'s pattern: a regular expression, or the text itself when it is not a valid one. */
export function namePattern(text: string): RegExp {
  try {
    return new RegExp(text);
  } catch {
    return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
}
