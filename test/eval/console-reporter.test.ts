/** The console reporter: a progress bar only on a terminal, a line per file, and each failure with its reason. */
import { describe, expect, it } from "vitest";
import type { LoadedFile } from "../../src/eval/loader/index.js";
import { ConsoleReporter } from "../../src/eval/report/console.js";
import type { CaseResult, EvalReport } from "../../src/eval/report/schema.js";
import { summarise } from "../../src/eval/report/summary.js";

const file: LoadedFile = { path: "/x/a.eval.ts", file: "eval/a.eval.ts", cases: [] };
const broken: LoadedFile = { path: "/x/b.eval.ts", file: "eval/b.eval.ts", cases: [], error: { code: "eval_load", message: "eval/b.eval.ts: cannot load: boom" } };

function result(name: string, pass: boolean): CaseResult {
  return {
    id: `eval/a.eval.ts > ${name}`,
    file: "eval/a.eval.ts",
    name,
    tags: [],
    status: pass ? "passed" : "failed",
    score: pass ? 1 : 0.5,
    threshold: 0,
    passRate: pass ? 1 : 0,
    flaky: false,
    attempts: [
      {
        attempt: 1,
        runId: `eval_${name}`,
        status: pass ? "passed" : "failed",
        score: pass ? 1 : 0.5,
        durationMs: 1,
        assertions: pass
          ? []
          : [
              { assertion: "completed", label: "completed()", scorer: "run-status", severity: "gate", status: "passed", value: 1, reason: "ok" },
              { assertion: "calledTool", label: 'calledTool("x")', scorer: "tool-called", severity: "gate", status: "failed", value: 0, reason: "x was never called; calls: none" },
            ],
        errors: pass ? [] : ["timed out after 50 ms"],
        notes: [],
        run: { status: "completed", turns: 1, steps: 1, toolCalls: 0, usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 }, cost: null, output: "hi" },
        judgeRuns: [],
      },
    ],
  };
}

function report(cases: CaseResult[], files: LoadedFile[]): EvalReport {
  const fileResults = files.map((entry) => ({ file: entry.file, cases: entry.cases.length, ...(entry.error ? { error: entry.error } : {}) }));
  return {
    format: "retrace-eval-report",
    version: 1,
    retrace: "0.1.0",
    mode: "mock",
    options: { repeat: 1, threshold: 0, tags: [], pattern: null, timeoutMs: 30000, bail: 0, shard: null },
    summary: summarise(cases, fileResults, [], 1234),
    errors: [],
    files: fileResults,
    cases,
  };
}

function play(isTTY: boolean): string {
  let text = "";
  const reporter = new ConsoleReporter({ write: (chunk) => (text += chunk), isTTY, color: false });
  const cases = [result("ok", true), result("bad", false)];
  reporter.start("mock");
  reporter.fileLoaded(broken, []);
  reporter.fileLoaded(file, cases);
  cases.forEach((item, index) => reporter.caseDone(item, index + 1));
  reporter.finish(report(cases, [broken, file]));
  return text;
}

describe("the console reporter", () => {
  it("draws a progress bar on a terminal and clears it before printing lines", () => {
    const text = play(true);
    expect(text).toContain("\r\u001b[2K █");
    expect(text).toMatch(/ 2\/2/);
  });

  it("prints no control characters when not on a terminal", () => {
    const text = play(false);
    expect(text).not.toContain("\r");
    expect(text).not.toContain("\u001b");
    expect(text).toBe(
      [
        "retrace eval-test · mock",
        "",
        " ✗ eval/b.eval.ts could not be loaded: eval/b.eval.ts: cannot load: boom",
        " ✗ eval/a.eval.ts (1 of 2 failed)",
        "",
        "Failures",
        "",
        " ✗ eval/a.eval.ts > bad score 0.50",
        '     ✗ calledTool("x"): x was never called; calls: none',
        "     ! timed out after 50 ms",
        "     run eval_bad: completed, 1 step(s), 0 tool call(s) · kept in memory only (--keep-runs <file.db> keeps it for retrace trace)",
        "",
        "Cases  1 passed · 1 failed · 1 file(s) not loaded (2)",
        "Score  0.75 (mean assertion score of the 2 case(s); not a pass rate)   Time  1.23 s",
        "",
        "ERROR (something could not be loaded) · exit code 2",
        "",
      ].join("\n"),
    );
  });

  it("does not print a score that contradicts the verdict: cases that failed on errors are not scored", () => {
    const failedOnErrors = (name: string): CaseResult => {
      const base = result(name, true);
      const attempt = { ...base.attempts[0]!, status: "failed" as const, errors: ["the mock script ran out"], scored: false };
      return { ...base, status: "failed", attempts: [attempt] };
    };
    const cases = ["a", "b", "c", "d"].map(failedOnErrors);
    expect(summarise(cases, [], [], 1)).toMatchObject({ passed: 0, failed: 4, score: null, scoredCases: 0 });
    let text = "";
    new ConsoleReporter({ write: (chunk) => (text += chunk), isTTY: false, color: false }).finish(report(cases, [file]));
    expect(text).toContain("Score  — (no case was scored: each failed before its assertions decided, or skipped them all)");
    expect(text).not.toContain("1.00");
    // One scored case among them: the score is its, and says over how many.
    const mixed = [...cases.slice(0, 3), result("ok", true)];
    let mixedText = "";
    new ConsoleReporter({ write: (chunk) => (mixedText += chunk), isTTY: false, color: false }).finish(report(mixed, [file]));
    expect(mixedText).toContain("Score  1.00 (mean assertion score of 1 of 4 cases (the others failed before their assertions decided); not a pass rate)");
  });
});
