/**
 * One runner per run through the library, not only the CLI: `AgentRun.resume()` (and `send` on
 * an opened run) takes the run — the SQLite lease across processes, an in-process claim for
 * every store — and a second driver gets RunBusyError naming the holder. Ordered by barriers
 * (a tool that waits for a line on stdin, a promise), never by sleeps.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock } from "../../src/context/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { RunBusyError, RunError } from "../../src/errors/index.js";
import { MemoryRunStore, SqliteRunStore } from "../../src/store/index.js";
import { processes } from "../cli/run-cli.js";
import { tempDir } from "../helpers.js";
import { holdAgent } from "./fixtures/library/agent.js";

const resumer = join(import.meta.dirname, "fixtures/library/resumer.ts");
const context = () => createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), seed: 7 });

/** A run of the hold agent cut after its message (a kill before the first model call), in `store`. */
async function unfinished(store: MemoryRunStore | SqliteRunStore, runId: string): Promise<void> {
  const full = new MemoryRunStore();
  await AgentRun.start(holdAgent(() => Promise.resolve("x")), { store: full, context: context(), runId }).send("go");
  store.appendRaw(full.readRaw(runId).slice(0, 2));
}

/**
 * The hold agent with its model call held open: `entered()` resolves once a call is held (the
 * next one, after each await), and `release` lets every held call finish with `value`.
 */
function gatedAgent() {
  const held: ((value: string) => void)[] = [];
  let arrived!: () => void;
  let next = new Promise<void>((resolve) => (arrived = resolve));
  const agent = holdAgent(() => {
    arrived();
    return new Promise<string>((resolve) => held.push(resolve));
  });
  return {
    agent,
    entered: async (): Promise<void> => {
      await next;
      next = new Promise<void>((resolve) => (arrived = resolve));
    },
    release: (value: string): void => {
      for (const resolve of held.splice(0)) resolve(value);
    },
  };
}

/** What a promise rejected with, or undefined when it fulfilled. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

function resumerProcess(db: string, runId: string) {
  const proc = spawn(process.execPath, ["--import", "tsx", resumer, db, runId], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("close", (code) => resolve(code)));
  return {
    pid: proc.pid as number,
    next: async () => {
      const line = await lines.next();
      if (line.done) throw new Error(`the resumer ended early: ${stderr}`);
      return line.value;
    },
    release: () => proc.stdin.write("go\n"),
    exited,
    stderr: () => stderr,
  };
}

const types = (events: readonly RunEvent[]) => events.map((event) => event.type);

describe("the library resume holds the run", () => {
  it(
    "two processes resume one run in one SQLite file: exactly one proceeds, the other is refused naming pid, host and since",
    async () => {
      const db = join(tempDir(), "runs.db");
      const setup = new SqliteRunStore(db);
      await unfinished(setup, "lib");
      setup.close();

      const first = resumerProcess(db, "lib");
      // The barrier: the first resumer is inside the run (its tool is running) before the second starts.
      expect(await first.next()).toBe("entered");
      const second = resumerProcess(db, "lib");
      const refused = JSON.parse(await second.next()) as { error: string; message: string; holder: { pid: number; host: string; since: string } };
      expect(await second.exited).toBe(4);
      expect(refused.error).toBe("run_busy");
      expect(refused.holder).toMatchObject({ pid: first.pid, host: hostname() });
      expect(Number.isNaN(Date.parse(refused.holder.since))).toBe(false);
      expect(refused.message).toBe(`run lib is being executed by process ${first.pid} on ${hostname()} since ${refused.holder.since}`);

      first.release();
      expect(JSON.parse(await first.next())).toEqual({ status: "completed", output: "done" });
      expect(await first.exited, first.stderr()).toBe(0);

      const store = new SqliteRunStore(db, { readonly: true });
      const events = store.read("lib");
      // One driver's log: each model call and the tool once, nothing from the refused one.
      expect(types(events)).toEqual([
        "run.started",
        "message",
        "llm.started",
        "llm.finished",
        "tool.requested",
        "tool.started",
        "tool.finished",
        "llm.started",
        "llm.finished",
        "run.finished",
      ]);
      expect(store.verify("lib").ok).toBe(true);
      // The lease was given back: the run can be taken again at once.
      expect(store.holder("lib")).toBeUndefined();
      store.close();
    },
    processes(2),
  );

  it("in one process, on a memory store: a second resume while the first drives is refused; after it, the run is free", async () => {
    const store = new MemoryRunStore();
    await unfinished(store, "mem");
    const { agent, entered, release } = gatedAgent();
    const first = AgentRun.open(agent, "mem", { store, context: context() }).resume();
    await entered();
    const second = AgentRun.open(agent, "mem", { store, context: context() });
    const refusal = await rejection(second.resume());
    expect(refusal).toBeInstanceOf(RunBusyError);
    expect((refusal as RunBusyError).holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect((refusal as RunBusyError).message).toMatch(/^run mem is being executed by process \d+ on .+ since \d{4}-/);
    // send on an opened run takes the run too.
    const sent = await rejection(second.send("another"));
    expect(sent).toBeInstanceOf(RunBusyError);
    release("released");
    expect(await first).toMatchObject({ status: "completed", output: "done" });
    // The refused object saw an older log: it says so instead of writing after a stale state.
    const stale = await rejection(second.resume());
    expect(stale).toBeInstanceOf(RunError);
    expect((stale as RunError).code).toBe("run_changed");
    // Opened again, the finished run resumes as a no-op: the claim was released.
    expect(await AgentRun.open(agent, "mem", { store, context: context() }).resume()).toMatchObject({ status: "completed" });
  });

  it("two SQLite store objects in one process on one file: the lease refuses the second", async () => {
    const db = join(tempDir(), "runs.db");
    const a = new SqliteRunStore(db);
    const b = new SqliteRunStore(db);
    try {
      await unfinished(a, "two");
      const { agent, entered, release } = gatedAgent();
      const first = AgentRun.open(agent, "two", { store: a, context: context() }).resume();
      await entered();
      expect(b.holder("two")).toMatchObject({ pid: process.pid });
      await expect(AgentRun.open(agent, "two", { store: b, context: context() }).resume()).rejects.toBeInstanceOf(RunBusyError);
      release("released");
      expect((await first).status).toBe("completed");
      expect(b.holder("two")).toBeUndefined();
    } finally {
      a.close();
      b.close();
    }
  });

  it("one SQLite store object drives two runs at once, each under its own lease; a second store is refused either", async () => {
    const db = join(tempDir(), "runs.db");
    const a = new SqliteRunStore(db);
    const b = new SqliteRunStore(db);
    try {
      await unfinished(a, "x");
      await unfinished(a, "y");
      const { agent, entered, release } = gatedAgent();
      const x = AgentRun.open(agent, "x", { store: a, context: context() }).resume();
      await entered();
      const y = AgentRun.open(agent, "y", { store: a, context: context() }).resume();
      await entered();
      expect(a.drives("x") && a.drives("y")).toBe(true);
      for (const runId of ["x", "y"]) await expect(AgentRun.open(agent, runId, { store: b, context: context() }).resume()).rejects.toBeInstanceOf(RunBusyError);
      release("released");
      expect([(await x).status, (await y).status]).toEqual(["completed", "completed"]);
      expect(a.drives("x") || a.drives("y")).toBe(false);
      for (const runId of ["x", "y"]) expect(a.verify(runId).ok).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });
});
