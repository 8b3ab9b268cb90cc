/**
 * Durability from the CLI, with real processes and real SQLite files: verify, the exit codes
 * for a busy run (4) and a tampered log (5), decisions on unknown outcomes, run --run-id,
 * crashed runs told from live ones, read-only commands, tool modules, and approve scrubbing
 * the run's own key values.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { RunLog, SqliteRunStore } from "../../src/store/index.js";
import { systemClock } from "../../src/context/index.js";
import { processes, retrace } from "../cli/run-cli.js";
import { tempDir } from "../helpers.js";
import { fixture } from "./harness.js";

const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
const agentYaml = join(fixture, "agent.yaml");

function setup() {
  const dir = tempDir("retrace-durability-cli-");
  const ledgers = join(dir, "ledgers");
  mkdirSync(ledgers);
  return { dir, db: join(dir, "runs.db"), env: { RETRACE_CRASH_LEDGER_DIR: ledgers }, ledger: (runId: string) => join(ledgers, `${runId}.ledger`) };
}

/** The fixture run, paused at its approval for refund (c4). */
async function pausedAtApproval(ctx: ReturnType<typeof setup>, runId = "x") {
  const started = await retrace(["run", agentYaml, "-m", "go", "--db", ctx.db, "--run-id", runId], { cwd: ctx.dir, env: ctx.env });
  expect(started.code).toBe(3);
  return started;
}

describe("retrace verify and tampered logs", () => {
  it(
    "verify exits 0 on an intact log and 5 naming the seq of an edited row; resume refuses the edited log with 5",
    async () => {
      const ctx = setup();
      await pausedAtApproval(ctx);
      const ok = await retrace(["verify", "x", "--db", ctx.db], { cwd: ctx.dir });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/run x: \d+ event\(s\), chain intact/);
      const db = new Sqlite(ctx.db);
      // The edited row is found by the same predicate that edits it: a search for "700" in any
      // body also matches a row that records this machine's process id or time.
      const target = "run_id = 'x' AND type = 'tool.requested' AND body LIKE '%c3%'";
      const seq = db.prepare(`SELECT seq FROM events WHERE ${target}`).pluck().get() as number;
      const edited = db.prepare(`UPDATE events SET body = replace(body, '"amount":7', '"amount":700') WHERE ${target}`).run();
      expect(edited.changes).toBe(1);
      db.close();
      const bad = await retrace(["verify", "x", "--db", ctx.db], { cwd: ctx.dir });
      expect(bad.code).toBe(5);
      expect(bad.stdout).toContain(`TAMPERED at seq ${seq}`);
      await retrace(["approve", "x", "c4", "--db", ctx.db], { cwd: ctx.dir });
      const resumed = await retrace(["resume", "x", "--db", ctx.db], { cwd: ctx.dir, env: ctx.env });
      expect(resumed.code).toBe(5);
      expect(resumed.stderr).toContain(`seq ${seq}`);
      expect(resumed.stderr).not.toMatch(/\n\s+at /);
    },
    processes(5),
  );
});

describe("one runner per run", () => {
  it(
    "resume, approve and run --run-id exit 4 while another live process holds the run, naming it",
    async () => {
      const ctx = setup();
      await pausedAtApproval(ctx);
      const holder = new SqliteRunStore(ctx.db);
      const lease = holder.takeRun("x");
      try {
        const message = new RegExp(`run x is being executed by process ${process.pid} on .+ since \\d{4}-\\d\\d-\\d\\dT`);
        for (const args of [
          ["resume", "x", "--db", ctx.db],
          ["approve", "x", "c4", "--db", ctx.db],
          ["run", agentYaml, "-m", "go", "--db", ctx.db, "--run-id", "x"],
        ]) {
          const result = await retrace(args, { cwd: ctx.dir, env: ctx.env });
          expect(result.code, args[0]).toBe(4);
          expect(result.stderr).toMatch(message);
        }
        const listed = await retrace(["runs", "--db", ctx.db, "--json"], { cwd: ctx.dir });
        expect(listed.stdout).toContain('"status":"waiting"');
      } finally {
        lease.release();
        holder.close();
      }
      expect((await retrace(["approve", "x", "c4", "--db", ctx.db], { cwd: ctx.dir })).code).toBe(0);
    },
    processes(5),
  );

  it(
    "runs tells a crashed run (interrupted) from one a live process is running",
    async () => {
      const ctx = setup();
      await pausedAtApproval(ctx);
      await retrace(["approve", "x", "c4", "--db", ctx.db], { cwd: ctx.dir });
      // What a process killed right after taking the run over leaves: running, and nobody driving it.
      const store = new SqliteRunStore(ctx.db);
      RunLog.open("x", store, systemClock).append<"run.resumed">({ type: "run.resumed" });
      const crashed = await retrace(["runs", "--db", ctx.db], { cwd: ctx.dir });
      expect(crashed.stdout).toMatch(/^x\s+crash-agent\s+interrupted\s/m);
      const lease = store.takeRun("x");
      const live = await retrace(["runs", "--db", ctx.db], { cwd: ctx.dir });
      expect(live.stdout).toMatch(new RegExp(`^x\\s+crash-agent\\s+running \\(pid ${process.pid} on `, "m"));
      lease.release();
      store.close();
    },
    processes(4),
  );
});

describe("unknown outcomes from the CLI", () => {
  it(
    "resume pauses with exit 3 and prints --rerun/--skip; approve --skip settles it and the run completes without running it again",
    async () => {
      const ctx = setup();
      await pausedAtApproval(ctx);
      await retrace(["approve", "x", "c4", "--db", ctx.db], { cwd: ctx.dir });
      // A resume killed while refund (not idempotent) ran: its start marker is in the log, its outcome is not.
      const store = new SqliteRunStore(ctx.db);
      const log = RunLog.open("x", store, systemClock);
      log.appendAll([{ type: "run.resumed" }, { type: "tool.started", callId: "c4", name: "refund" }]);
      store.close();
      const paused = await retrace(["resume", "x", "--db", ctx.db], { cwd: tempDir(), env: ctx.env });
      expect(paused.code).toBe(3);
      expect(paused.stderr).toContain(`retrace approve x c4 --rerun --db ${ctx.db}`);
      expect(paused.stderr).toContain("--skip");
      const plain = await retrace(["approve", "x", "c4", "--db", ctx.db], { cwd: ctx.dir });
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain("--rerun");
      const skipped = await retrace(["approve", "x", "c4", "--skip", "--db", ctx.db], { cwd: ctx.dir });
      expect(skipped.code).toBe(0);
      const done = await retrace(["resume", "x", "--db", ctx.db, "--json"], { cwd: ctx.dir, env: ctx.env });
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ status: "completed", output: "all errands done" });
      expect(readFileSync(ctx.ledger("x"), "utf8")).not.toContain("refund");
      const trace = await retrace(["trace", "x", "--db", ctx.db], { cwd: ctx.dir });
      expect(trace.stdout).toMatch(/tool\.unknown_outcome/);
      expect(trace.stdout).toMatch(/tool\.decided\s+refund c4: not run again/);
    },
    processes(7),
  );
});

describe("run --run-id", () => {
  it(
    "names the run, refuses an id already in the store or not an id, and completes a run killed before its message",
    async () => {
      const ctx = setup();
      expect((await retrace(["run", agentYaml, "-m", "go", "--db", ctx.db, "--run-id", "../x"], { cwd: ctx.dir, env: ctx.env })).code).toBe(2);
      await pausedAtApproval(ctx, "mine");
      const again = await retrace(["run", agentYaml, "-m", "go", "--db", ctx.db, "--run-id", "mine"], { cwd: ctx.dir, env: ctx.env });
      expect(again.code).toBe(2);
      // The printed command reaches the store the run is in, not the default one.
      const printed = /retrace resume mine --db (\S+)/.exec(again.stderr)?.[1];
      expect(printed && resolve(ctx.dir, printed)).toBe(resolve(ctx.db));
      // Killed between run.started and the message: the same command gives the run its message.
      const store = new SqliteRunStore(ctx.db);
      const first = store.readRaw("mine")[0] as string;
      store.appendRaw([first.replace('"runId":"mine"', '"runId":"early"')]);
      store.close();
      const early = await retrace(["run", agentYaml, "-m", "go", "--db", ctx.db, "--run-id", "early", "--json"], { cwd: ctx.dir, env: ctx.env });
      expect(early.code).toBe(3);
      expect(JSON.parse(early.stdout)).toMatchObject({ runId: "early", status: "waiting" });
    },
    processes(4),
  );
});

describe("read-only commands leave other files alone", () => {
  it(
    "runs and trace on another program's SQLite file refuse it by name and change nothing; on a store they change nothing either",
    async () => {
      const ctx = setup();
      const foreign = join(ctx.dir, "app.db");
      const db = new Sqlite(foreign);
      db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY)");
      db.close();
      const bytes = readFileSync(foreign);
      for (const args of [
        ["runs", "--db", foreign],
        ["trace", "x", "--db", foreign],
        ["verify", "x", "--db", foreign],
      ]) {
        const result = await retrace(args, { cwd: ctx.dir });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("app.db");
        expect(result.stderr).not.toMatch(/\n\s+at /);
      }
      expect(readFileSync(foreign).equals(bytes)).toBe(true);
      await pausedAtApproval(ctx);
      const before = statSync(ctx.db).mtimeMs;
      expect((await retrace(["trace", "x", "--db", ctx.db], { cwd: ctx.dir })).code).toBe(0);
      expect((await retrace(["runs", "--db", ctx.db], { cwd: ctx.dir })).code).toBe(0);
      expect(statSync(ctx.db).mtimeMs).toBe(before);
    },
    processes(6),
  );
});

describe("tool modules in config", () => {
  it(
    "a missing module, or one that exports no tools, is a config error naming tools[i].module",
    async () => {
      const ctx = setup();
      writeFileSync(join(ctx.dir, "empty.mjs"), "export const notATool = 1;\n");
      for (const [module, problem] of [
        ["./missing.mjs", "not found"],
        ["./empty.mjs", "exports no tools"],
      ] as const) {
        writeFileSync(join(ctx.dir, "agent.yaml"), `name: a\nllm: { provider: scripted, script: s.yaml }\ntools:\n  - module: ${module}\n`);
        writeFileSync(join(ctx.dir, "s.yaml"), "responses: [{ text: hi }]\n");
        const result = await retrace(["run", "agent.yaml", "-m", "hi", "--db", ctx.db], { cwd: ctx.dir });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("tools[0].module");
        expect(result.stderr).toContain(problem);
      }
    },
    processes(2),
  );
});

describe("approve scrubs the run's own key values", () => {
  it(
    "a key of the recorded config typed into --by never reaches the log",
    async () => {
      const ctx = setup();
      const canary = "canary4242ZQXW";
      writeFileSync(join(ctx.dir, "s.yaml"), "responses:\n  - tool_calls: [{ id: k1, name: refund, arguments: { amount: 1 } }]\n  - text: done\n");
      writeFileSync(
        join(ctx.dir, "agent.yaml"),
        `name: keyed\nllm: { provider: scripted, script: s.yaml, api_key: "\${SERVICE_API_KEY}" }\ntools:\n  - module: ${join(fixture, "tools.mjs")}\n`,
      );
      const env = { ...ctx.env, SERVICE_API_KEY: canary };
      const started = await retrace(["run", "agent.yaml", "-m", "go", "--db", ctx.db, "--run-id", "k"], { cwd: ctx.dir, env });
      expect(started.code).toBe(3);
      const approved = await retrace(["approve", "k", "k1", "--by", `ops (${canary})`, "--db", ctx.db], { cwd: tempDir(), env });
      expect(approved.code).toBe(0);
      const raw = await retrace(["trace", "k", "--json", "--db", ctx.db], { cwd: ctx.dir });
      expect(raw.stdout).toContain("approval.granted");
      expect(raw.stdout).not.toContain(canary);
    },
    processes(3),
  );
});
