/**
 * The store's durability rules: the hash chain (edited, deleted, swapped, inserted rows are
 * found, with their seq), leases (one runner per run), read-only opens that leave a foreign
 * file alone, synchronous settings, the format version.
 */
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_FORMAT_VERSION, type RunEvent } from "../../src/contracts/index.js";
import { RunBusyError, StoreError, TamperedLogError } from "../../src/errors/index.js";
import { serializeEvent } from "../../src/journal/index.js";
import { chainLink, SqliteRunStore, STORE_SCHEMA_VERSION } from "../../src/store/index.js";
import { tempDir } from "../helpers.js";

const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;

function message(runId: string, seq: number, content: string): string {
  return serializeEvent({ v: EVENT_FORMAT_VERSION, runId, seq, at: "2026-01-01T00:00:00.000Z", type: "message", role: "user", content } as RunEvent);
}

function storeWith(count: number): { path: string; store: SqliteRunStore } {
  const path = join(tempDir(), "runs.db");
  const store = new SqliteRunStore(path);
  store.appendRaw(Array.from({ length: count }, (_, index) => message("r", index + 1, `m${index + 1}`)));
  return { path, store };
}

/** Another program's edits, straight into the file. */
function raw(path: string, edit: (db: Database.Database) => void): void {
  const db = new Sqlite(path);
  try {
    edit(db);
  } finally {
    db.close();
  }
}

describe("the hash chain", () => {
  it("holds for what Retrace wrote, in one append or many, and keeps the event bytes unchanged", () => {
    const { store } = storeWith(5);
    store.appendRaw([message("r", 6, "six")]);
    store.appendRaw([message("r", 7, "seven"), message("r", 8, "eight")]);
    expect(store.verify("r")).toMatchObject({ ok: true, events: 8 });
    expect(store.readRaw("r")[5]).toBe(message("r", 6, "six"));
    store.close();
  });

  const kinds = ["edit", "delete", "swap", "insert", "edit-chain"] as const;
  it("reports an edited, deleted, swapped or hand-inserted row with its seq, and a full read refuses it", () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.integer({ min: 1, max: 5 }), (kind, target) => {
        const { path, store } = storeWith(6);
        store.close();
        raw(path, (db) => {
          if (kind === "edit") db.prepare("UPDATE events SET body = replace(body, ?, ?) WHERE seq = ?").run(`m${target}`, "changed", target);
          if (kind === "delete") db.prepare("DELETE FROM events WHERE seq = ?").run(target);
          if (kind === "swap") {
            const [a, b] = db.prepare("SELECT body FROM events WHERE seq IN (?, ?) ORDER BY seq").pluck().all(target, target + 1) as string[];
            db.prepare("UPDATE events SET body = ? WHERE seq = ?").run(b, target);
            db.prepare("UPDATE events SET body = ? WHERE seq = ?").run(a, target + 1);
          }
          if (kind === "insert") db.prepare("UPDATE events SET body = ?, chain = NULL WHERE seq = ?").run(message("r", target, "forged"), target);
          // Recomputing the edited row's own link is not enough: the next row no longer follows.
          if (kind === "edit-chain") {
            const previous = target === 1 ? "" : (db.prepare("SELECT chain FROM events WHERE seq = ?").pluck().get(target - 1) as string);
            const body = message("r", target, "rewritten");
            db.prepare("UPDATE events SET body = ?, chain = ? WHERE seq = ?").run(body, chainLink(previous, body), target);
          }
        });
        const reopened = new SqliteRunStore(path);
        const report = reopened.verify("r");
        expect(report.ok).toBe(false);
        expect(report.ok ? 0 : report.seq).toBe(kind === "edit-chain" ? target + 1 : target);
        expect(() => reopened.read("r")).toThrow(TamperedLogError);
        reopened.close();
      }),
      { numRuns: 25 },
    );
  });

  it("is added to the rows of a version 1 store when it is first opened for writing", () => {
    const path = join(tempDir(), "old.db");
    raw(path, (db) => {
      db.exec("CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID");
      for (let seq = 1; seq <= 3; seq++) db.prepare("INSERT INTO events VALUES ('r', ?, 'message', ?)").run(seq, message("r", seq, `m${seq}`));
      db.pragma("user_version = 1");
    });
    const readOnly = new SqliteRunStore(path, { readonly: true });
    expect(readOnly.verify("r")).toMatchObject({ ok: false, problem: expect.stringContaining("schema version 1") });
    readOnly.close();
    const store = new SqliteRunStore(path);
    expect(store.verify("r")).toMatchObject({ ok: true, events: 3 });
    store.appendRaw([message("r", 4, "m4")]);
    expect(store.verify("r")).toMatchObject({ ok: true, events: 4 });
    store.close();
  });
});

describe("leases: one runner per run", () => {
  it("refuses a second holder while the first is live, naming pid, host and since; takes over once released", () => {
    const { path, store } = storeWith(1);
    const other = new SqliteRunStore(path);
    const lease = store.takeRun("r");
    let refused: unknown;
    try {
      other.takeRun("r");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RunBusyError);
    expect((refused as Error).message).toMatch(new RegExp(`^run r is being executed by process ${process.pid} on .+ since \\d{4}-\\d\\d-\\d\\dT`));
    expect(other.holder("r")?.pid).toBe(process.pid);
    lease.release();
    expect(other.holder("r")).toBeUndefined();
    other.takeRun("r").release();
    store.close();
    other.close();
  });

  it("a lease that lapsed (its holder stopped renewing) is taken over, and the old holder can no longer write", () => {
    const { path, store } = storeWith(1);
    let now = 1_000_000;
    const clock = () => now;
    store.takeRun("r", { ttlMs: 1_000, now: clock });
    const next = new SqliteRunStore(path);
    expect(() => next.takeRun("r", { ttlMs: 1_000, now: clock })).toThrow(RunBusyError);
    now += 1_001;
    const taken = next.takeRun("r", { ttlMs: 1_000, now: clock });
    // The stalled holder wakes up and writes: refused, nothing interleaves.
    expect(() => store.appendRaw([message("r", 2, "late")])).toThrow(expect.objectContaining({ code: "lease_lost" }));
    next.appendRaw([message("r", 2, "mine")]);
    expect(next.readRaw("r")[1]).toContain("mine");
    taken.release();
    store.close();
    next.close();
  });

  it("a holder whose process is gone (same host) never blocks the run", () => {
    const { path, store } = storeWith(1);
    store.close();
    // A lease left by a process that no longer exists.
    raw(path, (db) =>
      db.prepare("INSERT INTO leases (run_id, token, pid, host, since, expires) VALUES ('r', 'x', ?, ?, '2026-01-01T00:00:00.000Z', ?)").run(2 ** 22 + 12345, require_host(), Date.now() + 3_600_000),
    );
    const next = new SqliteRunStore(path);
    expect(next.holder("r")).toBeUndefined();
    next.takeRun("r").release();
    next.close();
  });
});

function require_host(): string {
  return (createRequire(import.meta.url)("node:os") as typeof import("node:os")).hostname();
}

describe("opening files", () => {
  it("read-only opens change nothing in the file: no tables, no journal mode, no version", () => {
    const path = join(tempDir(), "other.db");
    raw(path, (db) => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
      db.pragma("user_version = 7");
    });
    const before = readFileSync(path);
    expect(() => new SqliteRunStore(path, { readonly: true })).toThrow(StoreError);
    expect(readFileSync(path).equals(before)).toBe(true);
    raw(path, (db) => {
      expect(db.pragma("journal_mode", { simple: true })).toBe("delete");
      expect(db.prepare("SELECT name FROM sqlite_master").pluck().all()).toEqual(["notes"]);
    });
  });

  it("a store's read-only open reads its runs and leaves the file's bytes as they were", () => {
    const { path, store } = storeWith(3);
    store.close();
    const copy = join(tempDir(), "copy.db");
    copyFileSync(path, copy);
    const size = statSync(copy).size;
    const reader = new SqliteRunStore(copy, { readonly: true });
    expect(reader.read("r")).toHaveLength(3);
    expect(() => reader.appendRaw([message("r", 4, "x")])).toThrow(expect.objectContaining({ code: "store_readonly" }));
    reader.close();
    expect(statSync(copy).size).toBe(size);
  });

  it("a file that is not SQLite is refused with an error naming it", () => {
    const path = join(tempDir(), "notes.txt");
    writeFileSync(path, "just some text that is long enough to not be an empty database ".repeat(20));
    expect(() => new SqliteRunStore(path, { readonly: true })).toThrow(expect.objectContaining({ place: expect.objectContaining({ file: path }) }));
  });

  it("a store written by a newer format version is refused, read-only or not", () => {
    const path = join(tempDir(), "new.db");
    raw(path, (db) => db.pragma(`user_version = ${STORE_SCHEMA_VERSION + 1}`));
    for (const options of [{}, { readonly: true }]) {
      expect(() => new SqliteRunStore(path, options)).toThrow(expect.objectContaining({ code: "store_version", message: expect.stringContaining("newer Retrace") }));
    }
  });

  it("synchronous is NORMAL by default and FULL on request, with WAL either way", () => {
    const dir = tempDir();
    const normal = new SqliteRunStore(join(dir, "normal.db"));
    expect(normal.settings).toEqual({ journalMode: "wal", synchronous: "NORMAL" });
    normal.close();
    const full = new SqliteRunStore(join(dir, "full.db"), { synchronous: "FULL" });
    expect(full.settings).toEqual({ journalMode: "wal", synchronous: "FULL" });
    full.close();
  });
});
