/**
 * `retrace eval-test` end to end: the real CLI in child processes, its exit codes, and the
 * reports it writes agreeing with each other and with the exit code.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CASE, readJsonReport, retrace, root, suite, tempDir } from "./cli-helpers.js";
import { processes } from "../cli/run-cli.js";

/** Counts in a JUnit XML report, read the way CI systems read them. */
function junitCounts(xml: string) {
  const top = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(xml);
  if (!top) throw new Error(`no <testsuites> element in:\n${xml.slice(0, 300)}`);
  const [, tests, failures, errors, skipped] = top.map(Number) as number[];
  return { tests, failures, errors, skipped, testcases: (xml.match(/<testcase /g) ?? []).length, failureElements: (xml.match(/<failure /g) ?? []).length };
}



describe.concurrent("retrace eval-test", () => {
  it("runs this project's own suites: all pass, exit 0, and the JSON and JUnit reports agree", async () => {
    const out = tempDir();
    const run = await retrace(["eval-test", "eval/", "--mock", "--reporter", `json=${join(out, "r.json")}`, "--reporter", `junit=${join(out, "r.xml")}`]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const report = readJsonReport(join(out, "r.json"));
    expect(report.summary.exitCode).toBe(0);
    expect(report.summary.cases).toBeGreaterThanOrEqual(20);
    expect(report.summary.passed).toBe(report.summary.cases);
    expect(run.stdout).toContain(`${report.summary.passed} passed`);
    expect(run.stdout).toContain("PASS · exit code 0");
    const junit = junitCounts(readFileSync(join(out, "r.xml"), "utf8"));
    expect(junit).toMatchObject({ tests: report.summary.cases, failures: 0, errors: 0, skipped: 0, testcases: report.summary.cases });
    // Together the suites use every assertion and several scorers.
    const assertions = new Set(report.cases.flatMap((result) => result.attempts.flatMap((attempt) => attempt.assertions.map((item) => item.assertion))));
    expect([...assertions].sort()).toEqual(
      [
        "blocked", "calledTool", "calledToolWith", "check", "completed", "failed", "judge", "maxCost", "maxSteps", "maxTokens",
        "notCalledTool", "outputContains", "outputMatches", "retrievedChunk", "toolSequence", "toolWasBlocked", "usedNoTools", "warned",
        "rankingMetric", "citationsResolve", "abstained", "waiting", "maxToolCalls",
      ].sort(),
    );
    const scorers = new Set(report.cases.flatMap((result) => result.attempts.flatMap((attempt) => attempt.assertions.map((item) => item.scorer))));
    for (const scorer of ["exact", "includes", "regex", "json-schema", "tool-trajectory", "numeric", "similarity", "budgets", "llm-judge", "ranking", "citations", "abstains"]) {
      expect(scorers).toContain(scorer);
    }
  }, processes(2));

  it("runs the same suite twice with identical results and run ids (determinism)", async () => {
    const out = tempDir();
    const first = await retrace(["eval-test", "eval/", "--mock", "--reporter", `json=${join(out, "a.json")}`]);
    const second = await retrace(["eval-test", "eval/", "--mock", "--concurrency", "1", "--reporter", `json=${join(out, "b.json")}`]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const strip = (file: string) =>
      readJsonReport(file).cases.map((result) => ({ ...result, attempts: result.attempts.map(({ durationMs: _duration, startedMs: _started, ...attempt }) => attempt) }));
    expect(strip(join(out, "b.json"))).toEqual(strip(join(out, "a.json")));
  }, processes(4));

  it("reports a file that does not compile (exit 2), names where, and still runs the other files", async () => {
    const dir = suite({
      "good.eval.ts": `import { defineEval } from "retrace-agents";\n${CASE("good", "t.completed();")}`,
      "bad.eval.ts": `import { defineEval } from "retrace-agents";\ndefineEval({ name: "x", config: {}, test: (t: ) => {} });\n`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    expect(run.code).toBe(2);
    const report = readJsonReport(out);
    expect(report.summary).toMatchObject({ passed: 1, fileErrors: 1, exitCode: 2 });
    expect(report.files.find((file) => file.file.endsWith("bad.eval.ts"))?.error?.message).toMatch(/bad\.eval\.ts:2:\d+: Unexpected "\)"/);
    expect(run.stdout).toMatch(/bad\.eval\.ts could not be loaded/);
  });

  it("names the line and column of a syntax error in a JavaScript eval file, .mjs and .js alike", async () => {
    const dir = suite({
      "good.eval.mjs": `import { defineEval } from "retrace-agents";\n${CASE("good", "t.completed();")}`,
      "bad.eval.mjs": `import { defineEval } from "retrace-agents";\n\nconst a = 1;\nfoo(a;\n`,
      "bad.eval.js": `const a = 1;\n  foo(a;\n`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    expect(run.code).toBe(2);
    const report = readJsonReport(out);
    expect(report.summary).toMatchObject({ passed: 1, fileErrors: 2 });
    const message = (name: string) => report.files.find((file) => file.file.endsWith(name))?.error?.message;
    // Node's own words are kept; esbuild, asked only once the import failed, says where.
    expect(message("bad.eval.mjs")).toMatch(/bad\.eval\.mjs:4:6: Expected "\)" but found ";" \(Node: missing \) after argument list\)/);
    expect(message("bad.eval.js")).toMatch(/bad\.eval\.js:2:8: Expected "\)" but found ";"/);
  });

  it("selects cases by tag and by name, and says so when nothing matches (exit 2)", async () => {
    const tagged = await retrace(["eval-test", "eval/", "--mock", "--tags", "governance", "--reporter", "json"]);
    const byTag = JSON.parse(tagged.stdout) as { cases: { tags: string[] }[] };
    expect(tagged.code).toBe(0);
    expect(byTag.cases.length).toBeGreaterThan(0);
    expect(byTag.cases.every((result) => result.tags.includes("governance"))).toBe(true);

    const excluded = await retrace(["eval-test", "eval/", "--mock", "--tags", "!governance", "--reporter", "json"]);
    const withoutTag = JSON.parse(excluded.stdout) as { cases: { tags: string[] }[] };
    expect(withoutTag.cases.some((result) => result.tags.includes("governance"))).toBe(false);

    const named = await retrace(["eval-test", "eval/", "--mock", "-t", "^retrieval:", "--reporter", "json"]);
    const byName = JSON.parse(named.stdout) as { cases: { name: string }[] };
    expect(byName.cases.map((result) => result.name).sort()).toEqual(["retrieval: eval questions retrieve the eval docs", "retrieval: finds the request-key passage"]);

    const none = await retrace(["eval-test", "eval/", "--mock", "-t", "no case is called this"]);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain("no case matches -t no case is called this");
  }, processes(8));

  it("shards a suite and merges the shard reports into the whole run", async () => {
    const out = tempDir();
    const shards = await Promise.all(
      [1, 2, 3].map((index) => retrace(["eval-test", "eval/", "--mock", "--shard", `${index}/3`, "--reporter", `json=${join(out, `shard-${index}.json`)}`])),
    );
    expect(shards.map((run) => run.code)).toEqual([0, 0, 0]);
    const sizes = [1, 2, 3].map((index) => readJsonReport(join(out, `shard-${index}.json`)).cases.length);
    const whole = await retrace(["eval-test", "eval/", "--mock", "--reporter", `json=${join(out, "whole.json")}`]);
    const total = readJsonReport(join(out, "whole.json")).summary.cases;
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(total);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(whole.code).toBe(0);

    const merged = await retrace(["merge-reports", ...[1, 2, 3].map((index) => join(out, `shard-${index}.json`)), "--reporter", `json=${join(out, "merged.json")}`, "--reporter", `junit=${join(out, "merged.xml")}`]);
    expect(merged.code).toBe(0);
    const report = readJsonReport(join(out, "merged.json"));
    expect(report.summary).toMatchObject({ cases: total, passed: total, exitCode: 0 });
    expect(report.mergedFrom).toHaveLength(3);
    expect(new Set(report.cases.map((result) => result.id)).size).toBe(total);
    expect(junitCounts(readFileSync(join(out, "merged.xml"), "utf8")).tests).toBe(total);
    expect(merged.stdout).toContain(`merged 3 report(s): ${total} case(s)`);

    const notShards = await retrace(["merge-reports", join(out, "shard-1.json"), join(out, "whole.json")]);
    expect(notShards.code).toBe(2);
    expect(notShards.stderr).toMatch(/whole\.json: not a shard's report/);
  }, processes(10));

  it("repeats cases, gives each a pass rate and lists the flaky ones (exit 1)", async () => {
    const dir = suite({
      "flaky.eval.ts": `import { defineEval } from "retrace-agents";
let attempts = 0;
${CASE("sometimes", "attempts++; t.check(attempts % 3 !== 0, true);")}
${CASE("always", "t.completed();")}`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--repeat", "3", "--concurrency", "1", "--reporter", `json=${out}`]);
    expect(run.code).toBe(1);
    const report = readJsonReport(out);
    const sometimes = report.cases.find((result) => result.name === "sometimes");
    expect(sometimes).toMatchObject({ status: "failed", flaky: true });
    expect(sometimes?.passRate).toBeCloseTo(2 / 3);
    expect(sometimes?.attempts.map((attempt) => attempt.status)).toEqual(["passed", "passed", "failed"]);
    expect(report.cases.find((result) => result.name === "always")).toMatchObject({ status: "passed", passRate: 1, flaky: false });
    expect(report.summary.flaky).toBe(1);
    expect(run.stdout).toMatch(/Flaky[\s\S]*sometimes: 67%/);
  });

  it("stops after the first failure with --bail; the cases not run are reported as skipped", async () => {
    const dir = suite({
      "bail.eval.ts": `import { defineEval } from "retrace-agents";
${CASE("one fails", "t.outputContains('nope');")}
${CASE("two", "t.completed();")}
${CASE("three", "t.completed();")}`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--bail", "--concurrency", "1", "--reporter", `json=${out}`, "--reporter", `junit=${join(dir, "r.xml")}`]);
    expect(run.code).toBe(1);
    const report = readJsonReport(out);
    expect(report.cases.map((result) => result.status)).toEqual(["failed", "skipped", "skipped"]);
    expect(junitCounts(readFileSync(join(dir, "r.xml"), "utf8"))).toMatchObject({ tests: 3, failures: 1, skipped: 2 });
  });

  it("--bail at the default --mock concurrency stops after the first failure: the rest are skipped, deterministically", async () => {
    const cases = Array.from({ length: 20 }, (_, index) => CASE(`case ${index}`, index === 2 ? "t.outputContains('nope');" : "t.completed();")).join("\n");
    const dir = suite({ "bail.eval.ts": `import { defineEval } from "retrace-agents";\n${cases}` });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--bail", "--reporter", `json=${out}`]);
    expect(run.code).toBe(1);
    const statuses = readJsonReport(out).cases.map((result) => result.status);
    expect(statuses).toEqual(["passed", "passed", "failed", ...Array.from({ length: 17 }, () => "skipped")]);
    expect(run.stdout).toContain("17 skipped");
  }, processes(1));

  it("--keep-runs writes every --mock case's runs to a SQLite store that retrace trace reads; the report and console name it", async () => {
    const dir = suite({
      "kept.eval.ts": `import { defineEval } from "retrace-agents";
${CASE("fails", "t.outputContains('nope'); await t.judge('llm-judge', { rubric: 'polite', mock: { responses: [{ text: 'PASS' }] } });")}
${CASE("passes", "t.completed();")}`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", "kept.eval.ts", "--mock", "--keep-runs", "runs/kept.db", "--reporter", `json=${out}`], { cwd: dir });
    expect(run.code).toBe(1);
    const report = readJsonReport(out);
    expect(report.runStore).toBe("runs/kept.db");
    const failed = report.cases.find((result) => result.name === "fails")?.attempts[0];
    const runId = failed?.runId as string;
    expect(run.stdout).toContain(`run ${runId}: completed, 1 step(s), 0 tool call(s) · retrace trace ${runId} --db runs/kept.db`);
    const trace = await retrace(["trace", runId, "--db", "runs/kept.db"], { cwd: dir });
    expect([trace.code, trace.stdout]).toEqual([0, expect.stringContaining("Hello there.")]);
    // The judge's run and the passing case's run are kept too.
    const judge = await retrace(["trace", failed?.judgeRuns[0] as string, "--db", "runs/kept.db"], { cwd: dir });
    expect([judge.code, judge.stdout]).toEqual([0, expect.stringContaining("PASS")]);
    // A second eval into the same file replaces the runs the first kept, rather than colliding with them.
    const again = await retrace(["eval-test", "kept.eval.ts", "--mock", "--keep-runs", "runs/kept.db"], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stdout).not.toContain("could not keep");
    // A file that is not a run store is refused, untouched.
    writeFileSync(join(dir, "notes.db"), "my notes");
    const foreign = await retrace(["eval-test", "kept.eval.ts", "--mock", "--keep-runs", "notes.db"], { cwd: dir });
    expect(foreign.code).toBe(2);
    expect(readFileSync(join(dir, "notes.db"), "utf8")).toBe("my notes");
  }, processes(5));

  it("compares with a baseline: regressions, fixes and score changes", async () => {
    const write = (first: string, second: string) =>
      suite({
        "cmp.eval.ts": `import { defineEval } from "retrace-agents";
${CASE("stable", "t.completed();")}
${CASE("breaks", first)}
${CASE("heals", second)}`,
      });
    const before = write("t.outputContains('Hello');", "t.outputContains('nope');");
    const baseline = join(before, "baseline.json");
    expect((await retrace(["eval-test", "cmp.eval.ts", "--mock", "--reporter", `json=${baseline}`], { cwd: before })).code).toBe(1);
    const after = write("t.outputContains('nope');", "t.outputContains('Hello');");
    // Case ids are relative to the working directory: run both from their own folder.
    const out = join(after, "now.json");
    const run = await retrace(["eval-test", "cmp.eval.ts", "--mock", "--baseline", baseline, "--reporter", `json=${out}`, "--reporter", "markdown"], {
      cwd: after,
    });
    expect(run.code).toBe(1);
    const report = readJsonReport(out);
    expect(report.comparison?.regressions.map((change) => change.id)).toEqual(["cmp.eval.ts > breaks"]);
    expect(report.comparison?.fixed.map((change) => change.id)).toEqual(["cmp.eval.ts > heals"]);
    expect(report.comparison?.scoreChanges.map((change) => [change.id, change.delta])).toEqual([
      ["cmp.eval.ts > breaks", -1],
      ["cmp.eval.ts > heals", 1],
    ]);
    // Markdown went to stdout (so the console reporter stepped aside).
    expect(run.stdout).toMatch(/^## Retrace eval: ❌ failed/);
    expect(run.stdout).toContain("regression: `cmp.eval.ts > breaks` (passed → failed)");
  }, processes(2));

  it("loads .mjs files natively and TypeScript with helpers, keeping import.meta and the eval file's lines", async () => {
    const dir = suite({
      "helpers/agent.ts": `export const agent = { name: "h", llm: { provider: "openai" as const }, tools: ["calculator"] };\nexport const here: string = import.meta.url;\n`,
      "ts.eval.ts": `import { defineEval, match } from "retrace-agents";
import { z } from "zod";
import { agent, here } from "./helpers/agent.ts";
defineEval({
  name: "typescript",
  config: agent,
  mock: { responses: [{ text: "ok" }] },
  test: async (t) => {
    await t.send("hi");
    t.check(here.endsWith("/helpers/agent.ts"), true, { label: "helper keeps its import.meta.url" });
    t.check(import.meta.url.endsWith("/ts.eval.ts"), true, { label: "eval file keeps its import.meta.url" });
    t.check(import.meta.filename, import.meta.dirname + "/ts.eval.ts", { label: "eval file keeps its import.meta.filename" });
    t.check({ ok: true }, match.jsonSchema(z.object({ ok: z.literal(true) })), { label: "a package import (zod) resolves from the eval file" });
  },
});
`,
      "plain.eval.mjs": `import { defineEval } from "retrace-agents";\n${CASE("javascript", "t.completed();")}`,
      "throws.eval.ts": `import { defineEval } from "retrace-agents";
interface Shape { sides: number }
defineEval({
  name: "throws",
  config: { name: "x", llm: { provider: "openai" } },
  mock: { responses: [{ text: "ok" }] },
  test: async (t) => {
    await t.send("hi");
    const shape: Shape = { sides: 3 };
    t.completed();
    if (shape.sides === 3) throw new Error("where am I");
  },
});
`,
    });
    // Packages resolve the way Node resolves them, from the project's node_modules.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(root, join(dir, "node_modules", "retrace-agents"), "dir");
    symlinkSync(join(root, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    const report = readJsonReport(out);
    expect(report.cases.map((result) => [result.name, result.status])).toEqual([
      ["javascript", "passed"],
      ["throws", "failed"],
      ["typescript", "passed"],
    ]);
    // The report names the eval file's own line, though the file ran compiled (types stripped).
    expect(report.cases[1]?.attempts[0]?.errors).toEqual(["the test body threw: where am I (at throws.eval.ts:11:34)"]);
    expect(run.code).toBe(1);
  });

  it("refuses a network request made outside any case under --mock, and says so (exit 2)", async () => {
    const dir = suite({
      "top.eval.ts": `import { defineEval } from "retrace-agents";
await fetch("https://telemetry.example.com/hello").catch(() => undefined);
${CASE("still runs", "t.completed();")}`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    const report = readJsonReport(out);
    expect(report.cases.map((result) => result.status)).toEqual(["passed"]);
    expect(report.errors).toEqual([{ code: "network_blocked", message: "network request under --mock outside any case: GET https://telemetry.example.com/hello" }]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("network request under --mock outside any case");
  });

  it("fails loudly under --live without a key, naming the variable, before any request", async () => {
    const run = await retrace(["eval-test", "eval/hello.eval.ts", "--live", "--reporter", "json"]);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as { cases: { status: string; attempts: { errors: string[] }[] }[] };
    expect(report.cases.every((result) => result.status === "error")).toBe(true);
    expect(report.cases[0]?.attempts[0]?.errors[0]).toMatch(/OPENAI_API_KEY is not set/);
  });

  it("is also called retrace eval, and refuses bad options with exit 2", async () => {
    const alias = await retrace(["eval", "eval/hello.eval.ts"]);
    expect(alias.code).toBe(0);
    expect(alias.stdout).toContain("retrace eval-test · mock");
    expect(alias.stdout).toContain("2 passed · 0 failed (2)");
    const both = await retrace(["eval-test", "--mock", "--live"]);
    expect([both.code, both.stderr]).toEqual([2, "error: eval-test: choose --mock or --live, not both\n"]);
    const shard = await retrace(["eval-test", "--shard", "3/2"]);
    expect(shard.code).toBe(2);
    expect(shard.stderr).toMatch(/--shard 3\/2: expected i\/n with 1 <= i <= n/);
    const reporter = await retrace(["eval-test", "--reporter", "tap"]);
    expect(reporter.stderr).toMatch(/unknown reporter "tap"; choose console, json\[=<file>\], junit\[=<file>\], markdown\[=<file>\] or html=<file>/);
    const missing = await retrace(["eval-test", "no/such/folder"]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(/no\/such\/folder: no such file or folder/);
  }, processes(5));
});

describe("retrace init", () => {
  it("scaffolds an agent, a mock script and evals that pass out of the box", async () => {
    const dir = join(tempDir(), "my-agent");
    const init = await retrace(["init", dir]);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created");
    for (const file of ["agent.yaml", "mock.yaml", "eval/agent.eval.ts", "package.json"]) expect(init.stdout).toContain(file);
    // No node_modules here: a TypeScript eval file's "retrace-agents" is the Retrace that runs it.
    const run = await retrace(["eval-test", "--mock"], { cwd: dir });
    expect(run.stdout).toContain("2 passed");
    expect(run.code).toBe(0);
    const again = await retrace(["init", dir]);
    expect(again.stdout).toMatch(/kept\s+.*agent\.yaml \(exists; --force overwrites\)/);
  }, processes(3));
});
