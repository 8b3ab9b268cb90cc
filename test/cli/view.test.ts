import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun, subAgentTool } from "../../src/agent/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import type { AnyTool } from "../../src/tools/index.js";
import { CASE, readJsonReport, retrace, suite } from "../eval/cli-helpers.js";
import { scriptedAgent, tempDir, testContext } from "../helpers.js";
import { processes } from "./run-cli.js";

/** The page's embedded data, read back as its script reads it. */
function pageData(file: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="retrace-data">([\s\S]*?)<\/script>/.exec(readFileSync(file, "utf8"));
  return JSON.parse(match?.[1] ?? "null") as Record<string, unknown>;
}

const evalFile = `import { defineEval } from "retrace-agents";
${CASE("fails", "t.outputContains('nope');")}
${CASE("passes", "t.completed();")}`;

describe("html pages from the CLI", () => {
  it("eval-test --reporter html=<file> writes the report and, with kept runs, a linked timeline page per run", async () => {
    const dir = suite({ "pages.eval.ts": evalFile });
    const run = await retrace(["eval-test", "pages.eval.ts", "--mock", "--keep-runs", "runs.db", "--reporter", "html=out/report.html", "--reporter", "json=out/report.json"], { cwd: dir });
    expect(run.code).toBe(1);
    const report = readJsonReport(join(dir, "out/report.json"));
    const data = pageData(join(dir, "out/report.html")) as { report: { summary: { failed: number } }; links: Record<string, string> };
    expect(data.report.summary.failed).toBe(1);
    const runIds = report.cases.map((result) => result.attempts[0]?.runId as string).sort();
    expect(Object.keys(data.links).sort()).toEqual(runIds);
    for (const runId of runIds) {
      const href = data.links[runId] as string;
      expect(href).toBe(`report.runs/${runId}.html`);
      expect(readFileSync(join(dir, "out", href), "utf8")).toContain(`<h1>Run ${runId}</h1>`);
    }
    // Without --keep-runs the html reporter keeps the runs in memory for its own pages: every case still links its timeline.
    const bare = await retrace(["eval-test", "pages.eval.ts", "--mock", "--reporter", "html=bare.html"], { cwd: dir });
    expect(bare.code).toBe(1);
    const bareLinks = (pageData(join(dir, "bare.html")) as { links: Record<string, string> }).links;
    expect(Object.keys(bareLinks).sort()).toEqual(runIds);
    for (const runId of runIds) expect(readFileSync(join(dir, bareLinks[runId] as string), "utf8")).toContain(`<h1>Run ${runId}</h1>`);
  }, processes(2));

  it("merge-reports --reporter html=<file> writes the merged report's page", async () => {
    const dir = suite({ "pages.eval.ts": evalFile });
    for (const shard of ["1/2", "2/2"]) await retrace(["eval-test", "pages.eval.ts", "--mock", "--shard", shard, "--reporter", `json=shard-${shard[0]}.json`], { cwd: dir });
    const merged = await retrace(["merge-reports", "shard-1.json", "shard-2.json", "--reporter", "html=merged.html"], { cwd: dir });
    expect(merged.code).toBe(1);
    const data = pageData(join(dir, "merged.html")) as { report: { summary: { cases: number; failed: number }; mergedFrom: string[] } };
    expect(data.report.summary).toMatchObject({ cases: 2, failed: 1 });
    expect(data.report.mergedFrom).toEqual(["shard-1.json", "shard-2.json"]);
  }, processes(3));

  it("retrace view writes a run's timeline, or a JSON report's page, and prints where", async () => {
    const dir = suite({ "pages.eval.ts": evalFile });
    await retrace(["eval-test", "pages.eval.ts", "--mock", "--keep-runs", "runs.db", "--reporter", "json=report.json"], { cwd: dir });
    const runId = readJsonReport(join(dir, "report.json")).cases[0]?.attempts[0]?.runId as string;

    const one = await retrace(["view", runId, "--db", "runs.db", "-o", "one.html"], { cwd: dir });
    expect([one.code, one.stdout, one.stderr]).toEqual([0, `${join(dir, "one.html")}\n`, ""]);
    const model = (pageData(join(dir, "one.html")) as { model: { runs: { runId: string; rows: unknown[] }[] } }).model;
    expect(model.runs[0]?.runId).toBe(runId);

    const byDefault = await retrace(["view", runId, "--db", "runs.db"], { cwd: dir });
    expect(byDefault.stdout).toBe(`${join(dir, `${runId}.html`)}\n`);

    const page = await retrace(["view", "report.json"], { cwd: dir });
    expect([page.code, page.stdout]).toEqual([0, `${join(dir, "report.html")}\n`]);
    expect(readdirSync(join(dir, "report.runs")).sort()).toHaveLength(2);
    // From another folder, the store the report names is found beside the report.
    const elsewhere = await retrace(["view", join(dir, "report.json"), "-o", join(dir, "again.html")], { cwd: tempDir("retrace-elsewhere-") });
    expect(elsewhere.code).toBe(0);
    expect(Object.keys(pageData(join(dir, "again.html")).links as object)).toHaveLength(2);
  }, processes(4));

  it("retrace view nests a sub-agent's run under the call that started it, read from a real store", async () => {
    const dir = tempDir("retrace-view-");
    const store = new SqliteRunStore(join(dir, "runs.db"));
    const child = { ...scriptedAgent({ responses: [{ text: "child found it" }] }), name: "finder" };
    const parent = scriptedAgent({ responses: [{ tool_calls: [{ name: "helper", arguments: { task: "look it up" } }] }, { text: "done" }] }, { tools: [subAgentTool("helper", child)] as AnyTool[] });
    await AgentRun.start(parent, { store, context: testContext(), runId: "parent" }).send("go");
    store.close();
    const view = await retrace(["view", "parent", "--db", "runs.db", "-o", "parent.html"], { cwd: dir });
    expect(view.code).toBe(0);
    const model = (pageData(join(dir, "parent.html")) as { model: { runs: { runId: string; agent: string; parent?: { callId: string } }[] } }).model;
    expect(model.runs.map((run) => run.agent)).toEqual(["test-agent", "finder"]);
    const callRow = (model.runs[0] as unknown as { rows: { k: string; callId?: string; child?: number }[] }).rows.find((row) => row.k === "tool");
    expect(callRow).toMatchObject({ callId: model.runs[1]?.parent?.callId, child: 1 });
  }, processes(1));

  it("--open hands the page to $BROWSER without waiting for it", async () => {
    const dir = suite({ "pages.eval.ts": evalFile });
    await retrace(["eval-test", "pages.eval.ts", "--mock", "--keep-runs", "runs.db", "--reporter", "json=report.json"], { cwd: dir });
    const opener = join(dir, "opener.mjs");
    writeFileSync(opener, `#!${process.execPath}\nimport { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(dir, "opened.txt"))}, process.argv[2]);\n`);
    chmodSync(opener, 0o755);
    const opened = await retrace(["view", "report.json", "-o", "seen.html", "--open"], { cwd: dir, env: { BROWSER: opener } });
    expect(opened.code).toBe(0);
    await expect.poll(() => (existsSync(join(dir, "opened.txt")) ? readFileSync(join(dir, "opened.txt"), "utf8") : ""), { timeout: 15_000 }).toBe(join(dir, "seen.html"));
  }, processes(3));

  it("refuses what it cannot show with exit code 2 and a message that says why", async () => {
    const dir = suite({ "pages.eval.ts": evalFile });
    await retrace(["eval-test", "pages.eval.ts", "--mock", "--keep-runs", "runs.db"], { cwd: dir });
    const missing = await retrace(["view", "run_nope", "--db", "runs.db"], { cwd: dir });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("no such run")]);
    const noStore = await retrace(["view", "run_nope", "--db", "elsewhere.db"], { cwd: dir });
    expect([noStore.code, noStore.stderr]).toEqual([2, expect.stringContaining("no run store here")]);
    writeFileSync(join(dir, "notes.json"), "{}");
    const notReport = await retrace(["view", "notes.json"], { cwd: dir });
    expect([notReport.code, notReport.stderr]).toEqual([2, expect.stringContaining("not a Retrace eval report")]);
    const htmlToStdout = await retrace(["eval-test", "pages.eval.ts", "--mock", "--reporter", "html"], { cwd: dir });
    expect([htmlToStdout.code, htmlToStdout.stderr]).toEqual([2, expect.stringContaining("give it one, e.g. --reporter html=report.html")]);
    const nothing = await retrace(["view"], { cwd: dir });
    expect([nothing.code, nothing.stderr]).toEqual([2, expect.stringContaining("give a run id, a report.json or a bundle")]);
  }, processes(6));
});
