import { execFileSync } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { SeqConflictError, StoreError } from "../../src/errors/index.js";
import { EVENT_FORMAT_VERSION, type RunEvent, type RunStore } from "../../src/contracts/index.js";
import { MemoryRunStore, SqliteRunStore } from "../../src/store/index.js";
import { runOnce, tempDir } from "../helpers.js";

function message(runId: string, seq: number, content = `m${seq}`): RunEvent {
  return { v: EVENT_FORMAT_VERSION, runId, seq, at: "2026-01-01T00:00:00.000Z", type: "message", role: "user", content };
}

const stores: [string, () => RunStore][] = [
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore(join(tempDir(), "runs.db"))],
];

describe.each(stores)("%s store", (_name, makeStore) => {
  it("reads back exactly what was appended, from any seq", async () => {
    const store = makeStore();
    const { events } = await runOnce({ responses: [{ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }] }, "go", {}, store);
    expect(store.read("run_0001")).toEqual(events);
    expect(store.read("run_0001", 4)).toEqual(events.slice(3));
    expect(store.read("run_0001", 2, 3)).toEqual(events.slice(1, 3));
    expect(store.lastSeq("run_0001")).toBe(events.length);
    expect(store.read("no-such-run")).toEqual([]);
    // The bytes RunLog wrote, unchanged, and fresh objects on every read: no reader shares the writer's.
    expect(store.readRaw("run_0001")).toEqual(events.map((event) => canonicalJson(event)));
    expect(store.readRaw("run_0001", 2, 3)).toEqual(events.slice(1, 3).map((event) => canonicalJson(event)));
    const first = store.read("run_0001")[1] as Extract<RunEvent, { type: "message" }>;
    first.content = "changed by a reader";
    expect(store.read("run_0001")[1]).toEqual(events[1]);
    expect(store.read("run_0001")[1]).not.toBe(events[1]);
    store.close();
  });

  it("rejects a duplicate seq with SeqConflictError and keeps the log unchanged", () => {
    const store = makeStore();
    store.append([message("r", 1), message("r", 2)]);
    const error = (() => {
      try {
        store.append([message("r", 2, "intruder")]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(SeqConflictError);
    expect((error as SeqConflictError).message).toMatch(/another writer appended first/);
    expect(store.read("r").map((event) => (event as { content: string }).content)).toEqual(["m1", "m2"]);
    store.close();
  });

  it("rejects a gap", () => {
    const store = makeStore();
    store.append([message("r", 1)]);
    expect(() => store.append([message("r", 3)])).toThrow(/would leave a gap/);
    expect(() => store.append([message("s", 2)])).toThrow(SeqConflictError);
    store.close();
  });

  it("appends a batch atomically: one bad seq inside rejects the whole batch", () => {
    const store = makeStore();
    store.append([message("r", 1)]);
    expect(() => store.append([message("r", 2), message("r", 4)])).toThrow(SeqConflictError);
    expect(store.lastSeq("r")).toBe(1);
    store.close();
  });

  it("lists runs with status, steps, usage and cost", async () => {
    const store = makeStore();
    await runOnce({ responses: [{ text: "hello" }] }, "hi", {}, store);
    const [summary] = store.list();
    expect(summary).toMatchObject({ runId: "run_0001", agent: "test-agent", status: "completed", steps: 1, output: "hello", cost: null });
    expect(summary?.usage.outputTokens).toBeGreaterThan(0);
    expect(summary?.events).toBe(store.lastSeq("run_0001"));
    store.close();
  });
});

describe("sqlite store", () => {
  it("lets only one of two writers (separate connections) append a given seq", () => {
    const path = join(tempDir(), "runs.db");
    const a = new SqliteRunStore(path);
    const b = new SqliteRunStore(path);
    a.append([message("r", 1)]);
    b.append([message("r", 2, "from b")]);
    expect(() => a.append([message("r", 2, "from a")])).toThrow(SeqConflictError);
    a.append([message("r", 3, "a after reading")]);
    expect(b.read("r").map((event) => (event as { content: string }).content)).toEqual(["m1", "from b", "a after reading"]);
    a.close();
    b.close();
  });

  it("guards seq against a writer in another process", () => {
    const path = join(tempDir(), "runs.db");
    const store = new SqliteRunStore(path);
    store.append([message("r", 1)]);
    // A second process appends seq 2 through its own connection.
    const script = `
      import { SqliteRunStore } from "./src/store/index.ts";
      const s = new SqliteRunStore(${JSON.stringify(path)});
      s.append([{ v: 1, runId: "r", seq: 2, at: "2026-01-01T00:00:00.000Z", type: "message", role: "user", content: "other process" }]);
      s.close();`;
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: join(import.meta.dirname, "../..") });
    expect(() => store.append([message("r", 2, "stale writer")])).toThrow(SeqConflictError);
    expect(store.lastSeq("r")).toBe(2);
    store.close();
  });

  it("stores canonical JSON, one row per event", async () => {
    const path = join(tempDir(), "runs.db");
    const store = new SqliteRunStore(path);
    await runOnce({ responses: [{ text: "ok" }] }, "hi", {}, store);
    const lines = store.readRaw("run_0001");
    expect(lines).toHaveLength(store.lastSeq("run_0001"));
    for (const line of lines) expect(line).toBe(canonicalJson(JSON.parse(line)));
    expect(lines[0]).toMatch(/^\{"agent":/);
    store.close();
  });

  it("refuses a database written by a newer schema version, with a clear message", () => {
    const path = join(tempDir(), "runs.db");
    const raw = new Database(path);
    raw.pragma("user_version = 99");
    raw.close();
    expect(() => new SqliteRunStore(path)).toThrow(StoreError);
    expect(() => new SqliteRunStore(path)).toThrow(/schema version 99, written by a newer Retrace/);
  });

  it("names the run and seq when a stored event is corrupt", () => {
    const path = join(tempDir(), "runs.db");
    const store = new SqliteRunStore(path);
    store.append([message("r", 1)]);
    const raw = new Database(path);
    raw.prepare("UPDATE events SET body = ? WHERE run_id = 'r'").run('{"v":1,"runId":"r","seq":1,"type":"message"}');
    raw.close();
    const error = (() => {
      try {
        store.read("r");
      } catch (caught) {
        return caught as StoreError;
      }
    })();
    // A row changed behind Retrace's back no longer follows its hash chain: that is reported first.
    expect(error?.code).toBe("log_tampered");
    expect(error?.describe()).toMatch(/runs\.db run r seq 1: /);
    // Read by range (no chain check), the event itself names its problem.
    expect(() => store.read("r", 1, 1)).toThrow(expect.objectContaining({ code: "event_invalid", place: expect.objectContaining({ runId: "r", seq: 1 }) }));
    store.close();
  });

  it("uses WAL journaling", () => {
    const path = join(tempDir(), "runs.db");
    new SqliteRunStore(path).close();
    const raw = new Database(path);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });
});
