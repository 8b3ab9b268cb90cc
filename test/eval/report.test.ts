/** The eval report: the exit code it carries, and the JUnit, Markdown and merged forms agreeing with it. */
import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/eval/report/compare.js";
import { renderJunit } from "../../src/eval/report/junit.js";
import { renderMarkdown } from "../../src/eval/report/markdown.js";
import { mergeReports } from "../../src/eval/report/merge.js";
import { parseReport } from "../../src/eval/report/read.js";
import { EvalReportSchema, type CaseResult, type EvalReport } from "../../src/eval/report/schema.js";
import { summarise } from "../../src/eval/report/summary.js";

function result(name: string, status: CaseResult["status"], score: number | null = status === "passed" ? 1 : 0, file = "eval/a.eval.ts"): CaseResult {
  const attempts: CaseResult["attempts"] =
    status === "skipped"
      ? []
      : [
          {
            attempt: 1,
            runId: `eval_${name}`,
            status: status === "error" ? "error" : status,
            score,
            durationMs: 2,
            assertions:
              status === "failed"
                ? [{ assertion: "calledTool", label: 'calledTool("x")', scorer: "tool-called", severity: "gate", status: "failed", value: 0, reason: "x was never called; calls: none" }]
                : [],
            errors: status === "error" ? ["config file not found"] : [],
            notes: [],
            run: null,
            judgeRuns: [],
          },
        ];
  return { id: `${file} > ${name}`, file, name, tags: [], status, score, threshold: 0, passRate: status === "skipped" ? null : status === "passed" ? 1 : 0, flaky: false, attempts };
}

function report(cases: CaseResult[], files: EvalReport["files"] = [{ file: "eval/a.eval.ts", cases: cases.length }], errors: EvalReport["errors"] = []): EvalReport {
  return {
    format: "retrace-eval-report",
    version: 1,
    retrace: "0.1.0",
    mode: "mock",
    options: { repeat: 1, threshold: 0, tags: [], pattern: null, timeoutMs: 30000, bail: 0, shard: null },
    summary: summarise(cases, files, errors, 10),
    errors,
    files,
    cases,
  };
}

describe("the exit code", () => {
  it("is 0 when all passed, 1 when a case failed or was skipped, 2 when anything could not be loaded", () => {
    expect(report([result("a", "passed")]).summary.exitCode).toBe(0);
    expect(report([result("a", "passed"), result("b", "failed")]).summary.exitCode).toBe(1);
    expect(report([result("a", "failed"), result("b", "skipped")]).summary).toMatchObject({ exitCode: 1, skipped: 1 });
    expect(report([result("a", "failed"), result("b", "error")]).summary.exitCode).toBe(2);
    expect(report([result("a", "passed")], [{ file: "x", cases: 0, error: { code: "eval_load", message: "boom" } }]).summary.exitCode).toBe(2);
    expect(report([], [], [{ code: "eval_no_match", message: "no case matches" }]).summary.exitCode).toBe(2);
  });

  it("averages case scores, leaving out cases without one", () => {
    expect(report([result("a", "passed", 1), result("b", "failed", 0.5), result("c", "error", null)]).summary.score).toBe(0.75);
  });
});

describe("JUnit XML", () => {
  it("counts what the JSON report counts, and escapes what XML cannot carry", () => {
    const cases = [result("ok", "passed"), result('quote " & <tag>', "failed"), result("broken", "error"), result("later", "skipped")];
    const xml = renderJunit(report(cases, [{ file: "eval/a.eval.ts", cases: 4 }, { file: "eval/b.eval.ts", cases: 0, error: { code: "eval_load", message: "b <broke>" } }]));
    expect(xml).toContain('<testsuites name="retrace eval (mock)" tests="5" failures="1" errors="2" skipped="1"');
    expect(xml).toContain('<testsuite name="eval/a.eval.ts" tests="4" failures="1" errors="1" skipped="1"');
    expect(xml).toContain('name="quote &quot; &amp; &lt;tag&gt;"');
    expect(xml).toContain('<failure message="calledTool(&quot;x&quot;): x was never called; calls: none" type="assertion">');
    expect(xml).toContain('<error message="config file not found" type="setup">');
    expect(xml).toContain('<skipped message="not run: stopped by --bail"/>');
    expect(xml).toContain('<error message="b &lt;broke&gt;" type="eval_load">');
    expect(xml.match(/<testcase /g)).toHaveLength(5);
  });
});

describe("JUnit suite time", () => {
  it("is the suite's wall span when cases ran concurrently, not the sum of their durations", () => {
    const timed = (name: string, startedMs: number, durationMs: number): CaseResult => {
      const base = result(name, "passed");
      return { ...base, attempts: base.attempts.map((attempt) => ({ ...attempt, startedMs, durationMs })) };
    };
    const xml = renderJunit(report([timed("a", 100, 300), timed("b", 150, 300), timed("c", 200, 100)]));
    expect(xml).toContain('<testsuite name="eval/a.eval.ts" tests="3" failures="0" errors="0" skipped="0" time="0.350">');
  });
});

describe("Markdown", () => {
  it("gives the verdict, the counts and each failure", () => {
    const text = renderMarkdown(report([result("ok", "passed"), result("bad | pipe", "failed")]));
    expect(text).toMatch(/^## Retrace eval: ❌ failed\n/);
    expect(text).toContain("| 1 | 1 | 0 | 0 | 0 | 0 |");
    expect(text).toContain('| `eval/a.eval.ts > bad \\| pipe` | calledTool("x"): x was never called; calls: none |');
  });
});

describe("merging shard reports", () => {
  const shard = (index: number, count: number, cases: CaseResult[], options: Partial<EvalReport["options"]> = {}): EvalReport => {
    const base = report(cases);
    return { ...base, options: { ...base.options, ...options, shard: { index, count } } };
  };

  it("joins the cases, recomputes the summary and refuses overlaps and mixed modes", () => {
    const one = shard(1, 2, [result("a", "passed")]);
    const two = shard(2, 2, [result("b", "failed")]);
    const merged = mergeReports([
      { file: "1.json", report: one },
      { file: "2.json", report: two },
    ]);
    expect(merged.summary).toMatchObject({ cases: 2, passed: 1, failed: 1, exitCode: 1 });
    expect(merged.options.shard).toBeNull();
    expect(merged.files).toEqual([{ file: "eval/a.eval.ts", cases: 1 }]);
    expect(merged.mergedFrom).toEqual(["1.json", "2.json"]);
    expect(() => mergeReports([{ file: "1.json", report: one }, { file: "1b.json", report: { ...two, cases: one.cases } }])).toThrow(/is in both 1\.json and 1b\.json/);
    expect(() => mergeReports([{ file: "1.json", report: one }, { file: "live.json", report: { ...two, mode: "live" } }])).toThrow(/--live report/);
  });

  it("refuses anything but every shard of one run: missing, repeated, unsharded, other counts or other options", () => {
    const part = (index: number, count = 3, options: Partial<EvalReport["options"]> = {}) => ({ file: `s${index}.json`, report: shard(index, count, [result(`c${index}`, "passed")], options) });
    expect(() => mergeReports([part(1), part(3)])).toThrow("shard 2/3 missing: give every shard's report (2 of 3 given)");
    expect(() => mergeReports([part(1), part(1), part(2)])).toThrow("shard 1/3 again (s1.json is that shard too)");
    expect(() => mergeReports([part(1, 2), part(2, 3)])).toThrow("shard 2/3, but s1.json is one of 2 shards");
    expect(() => mergeReports([part(1), { file: "whole.json", report: report([result("w", "passed")]) }])).toThrow("not a shard's report");
    const differing: [Partial<EvalReport["options"]>, string][] = [
      [{ repeat: 3 }, "--repeat 3"],
      [{ threshold: 0.5 }, "--threshold 0.5"],
      [{ tags: ["smoke"] }, '--tags ["smoke"]'],
      [{ pattern: "calc" }, '-t "calc"'],
    ];
    for (const [options, flag] of differing) {
      expect(() => mergeReports([part(1), part(2), part(3, 3, options)])).toThrow(`run with ${flag}, but s1.json with`);
    }
    expect(mergeReports([part(2), part(3), part(1)]).summary.cases).toBe(3);
  });

  it("drops the shards' own baseline comparisons, and compares the merged run when given a baseline", () => {
    const comparison = { baseline: "old.json", regressions: [], fixed: [], added: [], removed: ["eval/a.eval.ts > c2"], scoreChanges: [] };
    const one = { ...shard(1, 2, [result("c1", "passed")]), comparison };
    const two = { ...shard(2, 2, [result("c2", "failed")]), comparison };
    expect(mergeReports([{ file: "1.json", report: one }, { file: "2.json", report: two }]).comparison).toBeUndefined();
    const baseline = report([result("c1", "passed"), result("c2", "passed"), result("gone", "passed"), result("elsewhere", "passed", 1, "eval/other.eval.ts")]);
    const merged = mergeReports([{ file: "1.json", report: one }, { file: "2.json", report: two }], { baseline: { file: "base.json", report: baseline } });
    expect(merged.comparison).toMatchObject({
      baseline: "base.json",
      regressions: [{ id: "eval/a.eval.ts > c2", before: "passed", after: "failed" }],
      // eval/other.eval.ts was not part of this run: its case is not called removed.
      removed: ["eval/a.eval.ts > gone"],
    });
  });
});

describe("comparing with a baseline", () => {
  it("lists regressions, fixes, new and removed cases, and score moves of at least 0.01", () => {
    const before = report([result("keeps", "passed", 0.9), result("breaks", "passed"), result("heals", "failed"), result("gone", "passed")]);
    const now = [result("keeps", "passed", 0.895), result("breaks", "failed"), result("heals", "passed"), result("new", "passed")];
    expect(compareReports(before, now, "base.json")).toEqual({
      baseline: "base.json",
      regressions: [{ id: "eval/a.eval.ts > breaks", before: "passed", after: "failed" }],
      fixed: [{ id: "eval/a.eval.ts > heals", before: "failed", after: "passed" }],
      added: ["eval/a.eval.ts > new"],
      removed: ["eval/a.eval.ts > gone"],
      scoreChanges: [
        { id: "eval/a.eval.ts > breaks", before: 1, after: 0, delta: -1 },
        { id: "eval/a.eval.ts > heals", before: 0, after: 1, delta: 1 },
      ],
    });
  });
});

describe("reading a report back", () => {
  it("accepts what the schema describes and refuses anything else with a clear error", () => {
    const good = report([result("a", "passed")]);
    expect(parseReport(JSON.stringify(good), "r.json")).toEqual(EvalReportSchema.parse(good));
    expect(() => parseReport("{", "r.json")).toThrow(/not JSON/);
    expect(() => parseReport(JSON.stringify({ hello: 1 }), "r.json")).toThrow(/not a Retrace eval report/);
    expect(() => parseReport(JSON.stringify({ ...good, version: 9 }), "r.json")).toThrow(/report format version 9; this Retrace reads version 1/);
    expect(() => parseReport(JSON.stringify({ ...good, summary: { ...good.summary, exitCode: 7 } }), "r.json")).toThrow(/invalid report at summary\.exitCode/);
  });
});
