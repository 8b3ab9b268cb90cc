/** The numbers at the top of a report, and the exit code that goes with them. */
import type { CaseResult, EvalReport, EvalSummary, FileResult } from "./schema.js";

export function summarise(
  cases: readonly CaseResult[],
  files: readonly FileResult[],
  errors: readonly { code: string; message: string }[],
  durationMs: number,
): EvalSummary {
  const count = (status: CaseResult["status"]) => cases.filter((result) => result.status === status).length;
  // A case's score counts when its verdict came from its assertions (reports from before
  // `scored` existed count every case that has a score).
  const scores = cases
    .filter((result) => result.attempts.every((attempt) => attempt.scored !== false))
    .map((result) => result.score)
    .filter((score): score is number => score !== null);
  const fileErrors = files.filter((file) => file.error).length;
  const summary = {
    cases: cases.length,
    passed: count("passed"),
    failed: count("failed"),
    errors: count("error"),
    skipped: count("skipped"),
    flaky: cases.filter((result) => result.flaky).length,
    fileErrors,
    score: scores.length ? scores.reduce((sum, score) => sum + score, 0) / scores.length : null,
    scoredCases: scores.length,
    durationMs,
  };
  return { ...summary, exitCode: exitCodeOf(summary, errors.length) };
}

/**
 * 2: something could not be loaded or set up, or went wrong outside every case (a run-level
 * error); 1: a case failed (or was skipped by --bail); 0: all passed.
 */
export function exitCodeOf(summary: Omit<EvalSummary, "exitCode" | "durationMs" | "score">, suiteErrors: number): 0 | 1 | 2 {
  if (summary.fileErrors > 0 || summary.errors > 0 || suiteErrors > 0) return 2;
  if (summary.failed > 0 || summary.skipped > 0) return 1;
  return 0;
}

/** The report with run-level errors added (e.g. a report file that could not be written), its exit code updated. */
export function withReportErrors(report: EvalReport, errors: readonly { code: string; message: string }[]): EvalReport {
  if (errors.length === 0) return report;
  const all = [...report.errors, ...errors];
  return { ...report, errors: all, summary: { ...report.summary, exitCode: exitCodeOf(report.summary, all.length) } };
}
