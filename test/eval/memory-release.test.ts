/**
 * Under --mock a case's runs live only as long as the case: once it is reported, its run store
 * and its AgentRun (and so every event of its log) can be collected, and what stays is the
 * report. Checked in a child process run with --expose-gc, on the built runner.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CASE, root, suite } from "./cli-helpers.js";
import { processes } from "../cli/run-cli.js";

const dist = (path: string): string => JSON.stringify(pathToFileURL(join(root, "dist/src", path)).href);

// Every store and every run the suite makes is followed with a WeakRef.
const PROBE = `
import { runEvalSuite } from ${dist("eval/index.js")};
import { MemoryRunStore } from ${dist("store/index.js")};
import { AgentRun } from ${dist("agent/index.js")};
const refs = [];
const seen = new WeakSet();
const appendRaw = MemoryRunStore.prototype.appendRaw;
MemoryRunStore.prototype.appendRaw = function (bodies) {
  if (!seen.has(this)) { seen.add(this); refs.push(new WeakRef(this)); }
  return appendRaw.call(this, bodies);
};
const start = AgentRun.start;
AgentRun.start = function (...args) { const run = start.apply(this, args); refs.push(new WeakRef(run)); return run; };
const dir = process.argv[2];
const report = await runEvalSuite({ paths: [dir], cwd: dir, mode: "mock" });
for (let i = 0; i < 3; i++) { await new Promise((done) => setTimeout(done, 0)); globalThis.gc(); }
console.log(JSON.stringify({ passed: report.summary.passed, cases: report.cases.length, tracked: refs.length, alive: refs.filter((ref) => ref.deref() !== undefined).length }));
`;

describe("memory under --mock", () => {
  it(
    "no case's run store or run outlives its report entry",
    async () => {
      const cases = Array.from({ length: 40 }, (_, index) => CASE(`case ${index}`, `t.outputContains("Hello");`)).join("");
      const dir = suite({ "many.eval.mjs": `import { defineEval } from "retrace-agents";\n${cases}`, "probe.mjs": PROBE });
      const output = await new Promise<string>((done, fail) =>
        execFile(process.execPath, ["--expose-gc", join(dir, "probe.mjs"), dir], { cwd: dir }, (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout))),
      );
      const result = JSON.parse(output.trim().split("\n").at(-1) as string) as { passed: number; cases: number; tracked: number; alive: number };
      expect(result).toMatchObject({ passed: 40, cases: 40 });
      expect(result.tracked).toBeGreaterThanOrEqual(80);
      expect(result.alive).toBe(0);
    },
    processes(1),
  );
});
