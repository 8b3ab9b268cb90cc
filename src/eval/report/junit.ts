/**
 * JUnit XML, as CI systems read it: one <testsuite> per eval file, one <testcase> per case.
 * A failed case is a <failure>, a case that could not be set up or a file that could not be
 * loaded is an <error>, a case --bail never ran is <skipped>. Counts agree with the JSON report.
 */
import { failureLines, failureMessage, telling } from "./describe.js";
import type { CaseResult, EvalReport } from "./schema.js";

function escape(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    // XML 1.0 cannot carry most control characters, even escaped.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** A case's time: all its attempts'. */
function duration(result: CaseResult): number {
  return result.attempts.reduce((sum, attempt) => sum + attempt.durationMs, 0);
}

/**
 * A suite's time: from its first attempt's start to its last one's end. Cases run
 * concurrently, so the sum of their durations would exceed the time the suite took. A report
 * without start times (an older one, merged) falls back to the sum.
 */
function wallSpan(cases: readonly CaseResult[]): number {
  const attempts = cases.flatMap((result) => result.attempts);
  if (attempts.length === 0) return 0;
  if (attempts.some((attempt) => attempt.startedMs === undefined)) return cases.reduce((sum, result) => sum + duration(result), 0);
  const start = Math.min(...attempts.map((attempt) => attempt.startedMs as number));
  const end = Math.max(...attempts.map((attempt) => (attempt.startedMs as number) + attempt.durationMs));
  return end - start;
}

function testcase(result: CaseResult): string {
  const attempt = telling(result);
  const open = `    <testcase classname="${escape(result.file)}" name="${escape(result.name)}" time="${seconds(duration(result))}">`;
  const properties = [
    `        <property name="score" value="${result.score === null ? "" : result.score.toFixed(4)}"/>`,
    ...(attempt?.runId ? [`        <property name="runId" value="${escape(attempt.runId)}"/>`] : []),
    ...(result.attempts.length > 1 ? [`        <property name="passRate" value="${(result.passRate ?? 0).toFixed(4)}"/>`] : []),
  ];
  const body: string[] = [`      <properties>`, ...properties, `      </properties>`];
  if (result.status === "skipped") body.push(`      <skipped message="not run: stopped by --bail"/>`);
  else if (result.status !== "passed") {
    const first = failureLines(result)[0]?.text ?? result.status;
    const tag = result.status === "error" ? "error" : "failure";
    body.push(`      <${tag} message="${escape(first)}" type="${result.status === "error" ? "setup" : "assertion"}">${escape(failureMessage(result))}</${tag}>`);
  }
  return [open, ...body, `    </testcase>`].join("\n");
}

export function renderJunit(report: EvalReport): string {
  const byFile = new Map<string, CaseResult[]>();
  for (const result of report.cases) {
    const list = byFile.get(result.file) ?? [];
    list.push(result);
    byFile.set(result.file, list);
  }
  const suites: string[] = [];
  for (const file of report.files) {
    if (file.error) {
      suites.push(
        [
          `  <testsuite name="${escape(file.file)}" tests="1" failures="0" errors="1" skipped="0" time="0.000">`,
          `    <testcase classname="${escape(file.file)}" name="(load)" time="0.000">`,
          `      <error message="${escape(file.error.message)}" type="${escape(file.error.code)}">${escape(file.error.message)}</error>`,
          `    </testcase>`,
          `  </testsuite>`,
        ].join("\n"),
      );
      continue;
    }
    const cases = byFile.get(file.file) ?? [];
    if (cases.length === 0) continue;
    const count = (status: CaseResult["status"]) => cases.filter((result) => result.status === status).length;
    const time = wallSpan(cases);
    suites.push(
      [
        `  <testsuite name="${escape(file.file)}" tests="${cases.length}" failures="${count("failed")}" errors="${count("error")}" skipped="${count("skipped")}" time="${seconds(time)}">`,
        ...cases.map(testcase),
        `  </testsuite>`,
      ].join("\n"),
    );
  }
  for (const error of report.errors) {
    suites.push(
      [
        `  <testsuite name="retrace" tests="1" failures="0" errors="1" skipped="0" time="0.000">`,
        `    <testcase classname="retrace" name="(run)" time="0.000">`,
        `      <error message="${escape(error.message)}" type="${escape(error.code)}">${escape(error.message)}</error>`,
        `    </testcase>`,
        `  </testsuite>`,
      ].join("\n"),
    );
  }
  const { summary } = report;
  const tests = summary.cases + summary.fileErrors + report.errors.length;
  const errors = summary.errors + summary.fileErrors + report.errors.length;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="retrace eval (${report.mode})" tests="${tests}" failures="${summary.failed}" errors="${errors}" skipped="${summary.skipped}" time="${seconds(summary.durationMs)}">`,
    ...suites,
    `</testsuites>`,
    "",
  ].join("\n");
}
