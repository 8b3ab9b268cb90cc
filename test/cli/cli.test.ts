import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/store/index.js";
import { tempDir } from "../helpers.js";
import { processes, retrace, root } from "./run-cli.js";

const hello = ["examples/hello/agent.yaml", "-m", "What is 2 + 2?", "--mock", "examples/hello/mock.yaml"];

describe("retrace CLI", () => {
  let db: string;
  beforeAll(() => {
    db = join(tempDir(), "runs.db");
  });

  it("--help names every exit code the README's table documents", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("Exit codes:\n"), readme.indexOf("For `eval-test` and `merge-reports`"));
    const documented = [...table.matchAll(/^\| (\d) \|/gm)].map((found) => found[1]);
    expect(documented).toEqual(["0", "1", "2", "3", "4", "5"]);
    const help = await retrace(["--help"]);
    const line = help.stdout.slice(help.stdout.indexOf("Exit codes:")).replace(/\s+/g, " ");
    for (const code of documented) expect(line).toMatch(new RegExp(`[ :]${code} [a-z]`));
  });

  it("runs the quickstart with no key and prints the answer", async () => {
    const result = await retrace(["run", ...hello, "--db", db]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("4");
  });

  it("prints runId, status and output with --json, and the run can be listed and traced", async () => {
    const result = await retrace(["run", ...hello, "--db", db, "--json"]);
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { runId: string; status: string; output: string };
    expect(outcome).toMatchObject({ status: "completed", output: expect.stringContaining("4") });

    const runs = await retrace(["runs", "--db", db]);
    expect(runs.stdout).toMatch(/^RUN\s+AGENT\s+STATUS/);
    expect(runs.stdout).toContain(outcome.runId);

    const trace = await retrace(["trace", outcome.runId, "--db", db]);
    expect(trace.code).toBe(0);
    expect(trace.stdout).toMatch(/tool\.finished\s+calculator call_1_1 → \{"expression":"2 \+ 2","result":4\}/);
    expect(trace.stdout).toMatch(/run\.finished\s+completed/);

    const raw = await retrace(["trace", outcome.runId, "--db", db, "--json"]);
    const lines = raw.stdout.trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(lines.map((_, index) => index + 1));
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toContain("tool.requested");
  }, processes(4));

  it("exits 1 when the run fails (the mock script runs out)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "s.yaml"), "responses:\n  - tool_calls: [{ name: calculator, arguments: { expression: '1+1' } }]\n");
    const result = await retrace(["run", "examples/hello/agent.yaml", "-m", "hi", "--mock", join(dir, "s.yaml"), "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/failed: script_exhausted: .*s\.yaml: script exhausted: model call #2/);
  });

  it("exits 2 with the path and the problem for a bad config", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), "name: x\nllm:\n  provider: scripted\n  modle: y\n");
    const result = await retrace(["run", join(dir, "agent.yaml"), "-m", "hi", "--db", db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent\.yaml llm\.modle: unknown key "modle" \(did you mean "model"\?\)/);
  });

  it("names the missing key variable before any request is made", async () => {
    const result = await retrace(["run", "examples/hello/agent.yaml", "-m", "hi", "--db", db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/llm\.api_key: no API key: environment variable OPENAI_API_KEY is not set/);
  });

  it("exits 2 on usage errors and unknown commands", async () => {
    expect((await retrace(["run", "examples/hello/agent.yaml"])).code).toBe(2);
    const unknown = await retrace(["rn"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "rn"/);
    expect((await retrace(["trace", "no-such-run", "--db", db])).stderr).toMatch(/run no-such-run: no such run in .*runs\.db/);
    expect(await retrace(["resume", "no-such-run", "--db", db])).toMatchObject({ code: 2, stderr: `error: run no-such-run: no such run in ${db}\n` });
  }, processes(4));

  it("an unknown option gets the nearest known one, not parseArgs' advice about positionals", async () => {
    const tag = await retrace(["eval-test", "eval/", "--mock", "--tag", "smoke"]);
    expect(tag).toMatchObject({ code: 2, stderr: "error: eval-test: unknown option --tag (did you mean --tags?); see retrace eval-test --help\n" });
    const watch = await retrace(["run", "examples/hello/agent.yaml", "--mok", "x"]);
    expect(watch).toMatchObject({ code: 2, stderr: "error: run: unknown option --mok (did you mean --mock?); see retrace run --help\n" });
  });

  it("runs and trace say which store they read, and how to pick another, when it is empty or missing", async () => {
    const empty = tempDir();
    expect(await retrace(["runs"], { cwd: empty })).toMatchObject({
      code: 0,
      stdout: "no runs yet: there is no run store at .retrace/runs.db here (pass --db <path> to read another store)\n",
    });
    expect((await retrace(["trace", "r1"], { cwd: empty })).stderr).toMatch(/\.retrace\/runs\.db: no run store here \(pass --db <path> if the runs are elsewhere\)/);
    new SqliteRunStore(join(empty, ".retrace/runs.db")).close();
    expect(await retrace(["runs"], { cwd: empty })).toMatchObject({ code: 0, stdout: "no runs yet in .retrace/runs.db (pass --db <path> to read another store)\n" });
    expect((await retrace(["trace", "r1"], { cwd: empty })).stderr).toMatch(/no such run in .*\.retrace\/runs\.db \(pass --db <path> if it is in another store\)/);
  }, processes(4));

  it("read-only commands refuse a store that does not exist instead of creating one", async () => {
    const missing = join(tempDir(), "typo.db");
    const result = await retrace(["trace", "r", "--db", missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/typo\.db: no run store here/);
    expect(existsSync(missing)).toBe(false);
  });

  it("resolves store.path against the config's folder, and hints --db when the store is not the default", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "cfg"));
    writeFileSync(join(dir, "cfg/agent.yaml"), "name: x\nllm: {provider: openai}\ntools: [{name: calculator, requires_approval: true}]\nstore: { path: ./data/runs.db }\n");
    writeFileSync(join(dir, "mock.yaml"), "responses:\n  - tool_calls: [{ name: calculator, arguments: { expression: '1+1' } }]\n  - text: two\n");
    const result = await retrace(["run", "cfg/agent.yaml", "--mock", "mock.yaml", "-m", "1+1?"], { cwd: dir });
    expect(result.code).toBe(3);
    expect(existsSync(join(dir, "cfg/data/runs.db"))).toBe(true);
    expect(result.stderr).toMatch(/retrace approve run_\w+ call_1_1 --db cfg\/data\/runs\.db/);
    expect(result.stderr).toMatch(/then: retrace resume run_\w+ --db cfg\/data\/runs\.db/);
  });
});
