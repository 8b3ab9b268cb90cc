/** What each reporter says about a case that did not pass: the failed assertions and the case's own errors. */
import type { AttemptResult, CaseResult } from "./schema.js";

export interface FailureLine {
  kind: "gate" | "soft" | "error" | "skipped";
  text: string;
}

/** The first attempt that did not pass (or the last one), which is the one worth reading. */
export function telling(result: CaseResult): AttemptResult | undefined {
  return result.attempts.find((attempt) => attempt.status !== "passed") ?? result.attempts[result.attempts.length - 1];
}

export function failureLines(result: CaseResult): FailureLine[] {
  if (result.status === "skipped") return [{ kind: "skipped", text: "not run: stopped by --bail" }];
  const attempt = telling(result);
  if (!attempt) return [];
  const lines: FailureLine[] = [];
  for (const assertion of attempt.assertions) {
    if (assertion.status !== "failed") continue;
    lines.push({ kind: assertion.severity, text: `${assertion.label}: ${assertion.reason}` });
  }
  for (const error of attempt.errors) lines.push({ kind: "error", text: error });
  return lines;
}

export function failureMessage(result: CaseResult): string {
  return failureLines(result)
    .map((line) => (line.kind === "soft" ? `(soft) ${line.text}` : line.text))
    .join("\n");
}

export function formatScore(score: number | null): string {
  return score === null ? "n/a" : score.toFixed(2);
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
