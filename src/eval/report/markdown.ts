/** Markdown for a CI job summary (e.g. $GITHUB_STEP_SUMMARY): the verdict, the counts, each failure and what changed. */
import { failureLines, formatScore, formatSeconds } from "./describe.js";
import type { EvalReport } from "./schema.js";

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();
}

export function renderMarkdown(report: EvalReport): string {
  const { summary } = report;
  const verdict = summary.exitCode === 0 ? "✅ passed" : summary.exitCode === 1 ? "❌ failed" : "⚠️ could not run everything";
  const lines = [
    `## Retrace eval: ${verdict}`,
    "",
    `${summary.cases} case(s) · mode \`${report.mode}\` · score ${formatScore(summary.score)} · ${formatSeconds(summary.durationMs)} · exit code ${summary.exitCode}`,
    "",
    "| passed | failed | errors | skipped | flaky | files not loaded |",
    "|---:|---:|---:|---:|---:|---:|",
    `| ${summary.passed} | ${summary.failed} | ${summary.errors} | ${summary.skipped} | ${summary.flaky} | ${summary.fileErrors} |`,
  ];
  const broken = report.files.filter((file) => file.error);
  if (broken.length || report.errors.length) {
    lines.push("", "### Could not load", "");
    for (const file of broken) lines.push(`- \`${file.file}\`: ${cell(file.error?.message ?? "")}`);
    for (const error of report.errors) lines.push(`- ${cell(error.message)}`);
  }
  const failing = report.cases.filter((result) => result.status !== "passed");
  if (failing.length) {
    lines.push("", "### Failures", "", "| case | what failed |", "|---|---|");
    for (const result of failing) {
      const what = failureLines(result).map((line) => `${line.kind === "soft" ? "(soft) " : ""}${cell(line.text)}`).join("<br>");
      lines.push(`| \`${cell(result.id)}\` | ${what || result.status} |`);
    }
  }
  const flaky = report.cases.filter((result) => result.flaky);
  if (flaky.length) {
    lines.push("", "### Flaky", "");
    for (const result of flaky) lines.push(`- \`${result.id}\`: passed ${Math.round((result.passRate ?? 0) * 100)}% of ${result.attempts.length} runs`);
  }
  const comparison = report.comparison;
  if (comparison) {
    lines.push("", `### Compared with \`${comparison.baseline}\``, "");
    lines.push(`${comparison.regressions.length} regression(s), ${comparison.fixed.length} fixed, ${comparison.added.length} new, ${comparison.removed.length} removed`, "");
    for (const change of comparison.regressions) lines.push(`- regression: \`${change.id}\` (${change.before} → ${change.after})`);
    for (const change of comparison.scoreChanges.slice(0, 20)) {
      lines.push(`- score \`${change.id}\`: ${formatScore(change.before)} → ${formatScore(change.after)} (${change.delta >= 0 ? "+" : ""}${change.delta.toFixed(2)})`);
    }
  }
  return `${lines.join("\n")}\n`;
}
