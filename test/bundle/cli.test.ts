/**
 * The bundle commands as a user runs them: real child processes of the built CLI, a real
 * SQLite store, a bundle file on disk, exit codes 0 / 1 / 2.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { processes, retrace, root } from "../cli/run-cli.js";
import { useTempDirs } from "../e2e/harness.js";

const tempDir = useTempDirs();

it(
  "run → capture → inspect → replay: identical and exit 0; a changed prompt exit 1; a hostile bundle exit 2",
  async () => {
    const dir = tempDir();
    cpSync(join(root, "examples/hello"), dir, { recursive: true });
    const run = await retrace(["run", "agent.yaml", "--mock", "mock.yaml", "-m", "What is 2 + 2?", "--json"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const { runId } = JSON.parse(run.stdout) as { runId: string };

    const capture = await retrace(["capture", runId, "-o", "incident.tgz"], { cwd: dir });
    expect(capture.code, capture.stderr).toBe(0);
    expect(capture.stdout).toMatch(new RegExp(`^captured run ${runId} \\(1 run\\(s\\), 5 entries, \\d+ bytes\\) to incident.tgz\\n$`));

    const inspect = await retrace(["inspect", "incident.tgz"], { cwd: dir });
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain("checksums: ok");
    expect(inspect.stdout).toContain("tools called: calculator");

    // The replay writes only into a temp folder of its own, and removes it.
    const scratch = join(dir, "scratch");
    mkdirSync(scratch);
    const before = readdirSync(dir).sort();
    const replay = await retrace(["replay", "incident.tgz"], { cwd: dir, env: { TMPDIR: scratch } });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/^identical [0-9a-f]{64}\n$/);
    expect(readdirSync(scratch)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(before);

    writeFileSync(join(dir, "changed.yaml"), readFileSync(join(dir, "agent.yaml"), "utf8").replace("careful", "reckless"));
    const changed = await retrace(["replay", "incident.tgz", "--config", "changed.yaml"], { cwd: dir });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain("You are a [-careful-]{+reckless+} assistant");

    const bytes = readFileSync(join(dir, "incident.tgz"));
    writeFileSync(join(dir, "cut.tgz"), bytes.subarray(0, bytes.length - 20));
    const hostile = await retrace(["inspect", "cut.tgz"], { cwd: dir });
    expect(hostile.code).toBe(2);
    expect(hostile.stderr).toMatch(/^error: cut\.tgz: the gzip stream is damaged: .*\n$/);
  },
  processes(7),
);

it(
  "capture refuses a run whose log was edited after it was written, naming the row",
  async () => {
    const dir = tempDir();
    cpSync(join(root, "examples/hello"), dir, { recursive: true });
    const run = await retrace(["run", "agent.yaml", "--mock", "mock.yaml", "-m", "What is 2 + 2?", "--json", "--db", "runs.db"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(dir, "runs.db"));
    // The answer's text is changed in place: the row's bytes no longer match its chain link.
    db.prepare("UPDATE events SET body = replace(body, '2 + 2', '2 + 3') WHERE run_id = ? AND seq = 2").run(runId);
    db.close();
    const capture = await retrace(["capture", runId, "--db", "runs.db", "-o", "incident.tgz"], { cwd: dir });
    expect(capture.code).toBe(2);
    expect(capture.stderr).toMatch(new RegExp(`run ${runId} seq 2: .*the log cannot be trusted`));
    expect(readdirSync(dir)).not.toContain("incident.tgz");
  },
  processes(2),
);

it("inspect and replay of a bundle that is not there say so in words, exit 2", async () => {
  const dir = tempDir();
  for (const command of ["inspect", "replay"]) {
    const missing = await retrace([command, "nope.tgz"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.tgz: cannot open the bundle: no such file");
    expect(missing.stderr).not.toContain("ENOENT");
  }
});
