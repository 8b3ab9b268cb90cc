/**
 * `retrace eval-test` as a process: whatever the cases do — hang, reject, throw, reach for the
 * network after the suite — the process ends with the exit code its report gives, and the
 * report says what happened. The real CLI in child processes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASE, readJsonReport, retrace, suite, tempDir } from "./cli-helpers.js";
import { processes } from "../cli/run-cli.js";



const HEAD = `import { defineEval } from "retrace-agents";\n`;

/** A local server that notes every request, to check that refused means refused. */
const hits: string[] = [];
let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    hits.push(request.url ?? "");
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe.concurrent("the eval-test process", () => {
  it("a case that awaits forever times out and is reported; the process does not end early without a report", async () => {
    const dir = suite({
      "hang.eval.ts": HEAD + CASE("awaits forever", "t.completed(); await new Promise(() => {});", "\n  timeout: 200,"),
      "matcher.eval.ts": HEAD + CASE("matcher never settles", "t.check(t.reply, () => new Promise(() => {}));", "\n  timeout: 200,"),
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    expect(run.code).toBe(1);
    const report = readJsonReport(out);
    expect(report.summary).toMatchObject({ failed: 2, exitCode: 1 });
    for (const result of report.cases) expect(result.attempts[0]?.errors).toContain('timed out after 200 ms (set "timeout" on the case or --timeout)');
    expect(run.stdout).toContain("FAIL · exit code 1");
  });

  it("an eval file whose top level never settles is reported as not loaded (exit 2); the other files run", async () => {
    const dir = suite({
      "a-stuck.eval.ts": `${HEAD}await new Promise(() => {});\n${CASE("never defined", "t.completed();")}`,
      "b-fine.eval.ts": HEAD + CASE("fine", "t.completed();"),
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", ".", "--mock", "--timeout", "300", "--reporter", `json=${out}`], { cwd: dir });
    expect(run.code).toBe(2);
    const report = readJsonReport(out);
    expect(report.summary).toMatchObject({ passed: 1, fileErrors: 1, exitCode: 2 });
    expect(report.files.find((file) => file.file.endsWith("a-stuck.eval.ts"))?.error).toEqual({
      code: "eval_load_timeout",
      message: "a-stuck.eval.ts: did not finish loading within 300 ms (does its top level await something that never settles?); its cases were not run",
    });
  });

  it("a rejection a case leaves unhandled fails that case; the exit code is the report's", async () => {
    const dir = suite({
      "rejects.eval.ts": HEAD + CASE("rejects", 'Promise.reject(new Error("nobody handles me")); t.completed();') + CASE("fine", "t.completed();"),
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    const report = readJsonReport(out);
    expect(report.cases.map((result) => [result.name, result.status])).toEqual([
      ["rejects", "failed"],
      ["fine", "passed"],
    ]);
    expect(report.cases[0]?.attempts[0]?.errors[0]).toMatch(/^the case's code left an error unhandled: unhandled rejection: nobody handles me/);
    expect([run.code, report.summary.exitCode]).toEqual([1, 1]);
  });

  it("an exception thrown by an eval file's own timer fails the run (exit 2), in the report", async () => {
    const dir = suite({
      "timer.eval.ts": `${HEAD}setTimeout(() => { throw new Error("thrown later by the top level"); }, 0);\n${CASE("defined", "t.completed();")}`,
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    const report = readJsonReport(out);
    expect(report.errors).toEqual([{ code: "uncaught_error", message: expect.stringMatching(/^an error outside any case was never handled: uncaught exception: thrown later by the top level/) }]);
    expect([run.code, report.summary.exitCode]).toEqual([2, 2]);
    expect(run.stdout).toContain("exit code 2");
  });

  it("a report file that cannot be written makes exit code 2, and the console and the other files say so", async () => {
    const dir = suite({ "ok.eval.ts": HEAD + CASE("fine", "t.completed();") });
    const xml = join(dir, "r.xml");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", "json=/etc/hostname/r.json", "--reporter", `junit=${xml}`]);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/cannot write the json report to \/etc\/hostname\/r\.json/);
    expect(run.stdout).toContain("exit code 2");
    expect(run.stdout).not.toContain("PASS");
    expect(readFileSync(xml, "utf8")).toMatch(/<error message="cannot write the json report to \/etc\/hostname\/r\.json: [^"]*" type="report_write"/);
  });

  it("under --mock the network stays refused after the suite, until the process exits", async () => {
    const dir = suite({
      "late.eval.ts": HEAD + CASE("leaves a timer", `setTimeout(() => void fetch(${JSON.stringify(`${base}/after-suite`)}).catch(() => undefined), 100); t.completed();`),
    });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", ".", "--mock", "--reporter", `json=${out}`], { cwd: dir });
    expect([run.code, readJsonReport(out).summary.exitCode]).toEqual([0, 0]);
    expect(hits.filter((hit) => hit === "/after-suite")).toEqual([]);
    expect(run.stderr).toMatch(/warning: network request under --mock refused after the report was made: GET http:\/\/127\.0\.0\.1:\d+\/after-suite \(from case "late\.eval\.ts > leaves a timer" after it ended\)/);
  });
});

describe.concurrent("eval-test options", () => {
  it("refuses a threshold that is empty or not a plain decimal", async () => {
    for (const value of ["--threshold=", "--threshold=0x1", "--threshold=1e-1", "--threshold= "]) {
      const run = await retrace(["eval-test", "eval/hello.eval.ts", value]);
      expect([run.code, run.stderr], value).toEqual([2, expect.stringMatching(/--threshold must be a number from 0 to 1/)]);
    }
    const hex = await retrace(["eval-test", "eval/hello.eval.ts", "--timeout", "0x10"]);
    expect([hex.code, hex.stderr]).toEqual([2, expect.stringMatching(/--timeout must be a positive integer, got "0x10"/)]);
  }, processes(5));

  it("refuses two reporters that would both write to stdout", async () => {
    const run = await retrace(["eval-test", "eval/hello.eval.ts", "--reporter", "json", "--reporter", "junit"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/json and junit would both write to stdout; give all but one a file/);
  });

  it("a .mjs eval file in a project without Retrace installed gets the running Retrace, as a .ts file does", async () => {
    const dir = suite({ "plain.eval.mjs": HEAD + CASE("javascript", "t.completed(); t.check(import.meta.url.endsWith('/plain.eval.mjs'), true);") });
    const out = join(dir, "report.json");
    const run = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${out}`]);
    expect(readJsonReport(out).cases.map((result) => [result.name, result.status])).toEqual([["javascript", "passed"]]);
    expect(run.code).toBe(0);
  });
});

describe.concurrent("shards and baselines", () => {
  const cases = HEAD + ["one", "two", "three", "four"].map((name) => CASE(name, "t.completed();", `\n  tags: [${JSON.stringify(name.length > 3 ? "long" : "short")}],`)).join("");

  it("merge-reports refuses a missing shard, a report that is not a shard, and shards run with other options", async () => {
    const dir = suite({ "s.eval.ts": cases });
    const shard = (index: number, ...extra: string[]) => retrace(["eval-test", "s.eval.ts", "--mock", "--shard", `${index}/3`, ...extra, "--reporter", `json=s${index}${extra.length ? "x" : ""}.json`], { cwd: dir });
    await Promise.all([shard(1), shard(2), shard(3), shard(3, "--threshold", "0.5")]);
    await retrace(["eval-test", "s.eval.ts", "--mock", "--reporter", "json=whole.json"], { cwd: dir });
    const merge = (...files: string[]) => retrace(["merge-reports", ...files], { cwd: dir });
    const missing = await merge("s1.json", "s2.json");
    expect([missing.code, missing.stderr]).toEqual([2, "error: shard 3/3 missing: give every shard's report (2 of 3 given)\n"]);
    const whole = await merge("s1.json", "s2.json", "whole.json");
    expect([whole.code, whole.stderr]).toEqual([2, expect.stringContaining("whole.json: not a shard's report (it was run without --shard i/n)")]);
    const mixed = await merge("s1.json", "s2.json", "s3x.json");
    expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringContaining('s3x.json: run with --threshold 0.5, but s1.json with 0; the shards of one run share their options')]);
    const twice = await merge("s1.json", "s1.json", "s3.json");
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining("s1.json: shard 1/3 again (s1.json is that shard too)")]);
    const all = await merge("s1.json", "s2.json", "s3.json");
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("merged 3 report(s): 4 case(s)");
  }, processes(12));

  it("--baseline compares only the cases this run selected: a filtered-out or other shard's case is not 'removed'", async () => {
    const dir = suite({ "s.eval.ts": cases });
    await retrace(["eval-test", "s.eval.ts", "--mock", "--reporter", "json=base.json"], { cwd: dir });
    const filtered = await retrace(["eval-test", "s.eval.ts", "--mock", "-t", "^one$", "--baseline", "base.json", "--reporter", "json=t.json"], { cwd: dir });
    expect(filtered.code).toBe(0);
    expect(readJsonReport(join(dir, "t.json")).comparison).toMatchObject({ removed: [], added: [], regressions: [] });
    const tagged = await retrace(["eval-test", "s.eval.ts", "--mock", "--tags", "short", "--baseline", "base.json", "--reporter", "json=g.json"], { cwd: dir });
    expect(tagged.code).toBe(0);
    expect(readJsonReport(join(dir, "g.json")).comparison?.removed).toEqual([]);
    const sharded = await Promise.all(
      [1, 2].map((index) => retrace(["eval-test", "s.eval.ts", "--mock", "--shard", `${index}/2`, "--baseline", "base.json", "--reporter", `json=h${index}.json`], { cwd: dir })),
    );
    expect(sharded.map((run) => run.code)).toEqual([0, 0]);
    expect(readJsonReport(join(dir, "h1.json")).comparison?.removed).toEqual([]);

    // A case really removed is still "removed"; and merge-reports compares the whole merged run.
    writeFileSync(join(dir, "s.eval.ts"), cases.replace(/defineEval\(\{\s*name: "four"[\s\S]*$/, ""));
    const now = await retrace(["eval-test", "s.eval.ts", "--mock", "--baseline", "base.json", "--reporter", "json=now.json"], { cwd: dir });
    expect(now.code).toBe(0);
    expect(readJsonReport(join(dir, "now.json")).comparison?.removed).toEqual(["s.eval.ts > four"]);
    await Promise.all([1, 2].map((index) => retrace(["eval-test", "s.eval.ts", "--mock", "--shard", `${index}/2`, "--reporter", `json=m${index}.json`], { cwd: dir })));
    const merged = await retrace(["merge-reports", "m1.json", "m2.json", "--baseline", "base.json", "--reporter", "json=merged.json"], { cwd: dir });
    expect(merged.code).toBe(0);
    expect(readJsonReport(join(dir, "merged.json")).comparison).toMatchObject({ baseline: "base.json", removed: ["s.eval.ts > four"], regressions: [] });
  }, processes(9));
});
