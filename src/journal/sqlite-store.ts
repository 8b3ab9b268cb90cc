import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { canonicalJson } from "../canonical/index.js";
import { SeqConflictError, StoreError } from "../errors/index.js";
import { parseEvent, type RunEvent } from "../events/index.js";
import type { RunStore, RunSummary } from "./store.js";
import { SUMMARY_EVENT_TYPES, updateSummary } from "./summary.js";

export const STORE_SCHEMA_VERSION = 1;
export const DEFAULT_DB_PATH = ".retrace/runs.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  started_at TEXT NOT NULL,
  summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at);
`;

type Statement = Database.Statement<unknown[], unknown>;

/** The run log in one SQLite file (WAL), safe for several processes to share. */
export class SqliteRunStore implements RunStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #insert: Statement;
  readonly #lastSeq: Statement;
  readonly #readFrom: Statement;
  readonly #getSummary: Statement;
  readonly #putSummary: Statement;
  readonly #appendTx: (events: readonly RunEvent[]) => void;

  constructor(path: string = DEFAULT_DB_PATH) {
    this.path = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    try {
      this.#db = new Database(path);
    } catch (error) {
      throw new StoreError("store_open", `cannot open the run store: ${(error as Error).message}`, { file: path });
    }
    const db = this.#db;
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > STORE_SCHEMA_VERSION) {
      db.close();
      throw new StoreError(
        "store_version",
        `this run store uses schema version ${version}, written by a newer Retrace; this version reads up to ${STORE_SCHEMA_VERSION}. Upgrade Retrace or use another --db.`,
        { file: path },
      );
    }
    db.pragma("journal_mode = WAL");
    // WAL with synchronous=NORMAL survives a process crash; only an OS crash can lose the last commits.
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    if (version < STORE_SCHEMA_VERSION) {
      db.exec(SCHEMA);
      db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
    }
    this.#insert = db.prepare("INSERT INTO events (run_id, seq, type, body) VALUES (?, ?, ?, ?)");
    this.#lastSeq = db.prepare("SELECT max(seq) AS seq FROM events WHERE run_id = ?").pluck();
    this.#readFrom = db.prepare("SELECT seq, body FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq");
    this.#getSummary = db.prepare("SELECT summary FROM runs WHERE run_id = ?").pluck();
    this.#putSummary = db.prepare(
      "INSERT INTO runs (run_id, started_at, summary) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET summary = excluded.summary",
    );
    // IMMEDIATE takes the write lock before the seq check, so the check and the insert are one step.
    this.#appendTx = db.transaction((events: readonly RunEvent[]) => this.#appendLocked(events)).immediate;
  }

  append(events: readonly RunEvent[]): void {
    if (events.length === 0) return;
    this.#appendTx(events);
  }

  #appendLocked(events: readonly RunEvent[]): void {
    const first = events[0] as RunEvent;
    const runId = first.runId;
    const last = (this.#lastSeq.get(runId) as number | null) ?? 0;
    let expected = last + 1;
    let summary: RunSummary | undefined;
    let summaryTouched = false;
    for (const event of events) {
      if (event.runId !== runId) throw new StoreError("store_corrupt", "one append must hold events of one run", { runId });
      if (event.seq !== expected) throw new SeqConflictError(runId, event.seq, expected - 1);
      this.#insert.run(runId, event.seq, event.type, canonicalJson(event));
      expected++;
      if (SUMMARY_EVENT_TYPES.has(event.type)) {
        if (!summaryTouched && event.type !== "run.started") summary = this.#readSummary(runId);
        summary = updateSummary(summary, event);
        summaryTouched = true;
      }
    }
    if (summary) this.#putSummary.run(runId, summary.startedAt, canonicalJson(summary));
  }

  #readSummary(runId: string): RunSummary | undefined {
    const text = this.#getSummary.get(runId) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as RunSummary);
  }

  read(runId: string, fromSeq = 1): RunEvent[] {
    const rows = this.#readFrom.all(runId, fromSeq) as { seq: number; body: string }[];
    return rows.map((row) => parseEvent(row.body, { file: this.path, runId, seq: row.seq }));
  }

  /** The stored bytes of each event, exactly as written (for `trace --json` and bundles). */
  readRaw(runId: string, fromSeq = 1): string[] {
    return (this.#readFrom.all(runId, fromSeq) as { body: string }[]).map((row) => row.body);
  }

  lastSeq(runId: string): number {
    return (this.#lastSeq.get(runId) as number | null) ?? 0;
  }

  list(options: { limit?: number } = {}): RunSummary[] {
    const sql =
      "SELECT summary, (SELECT max(seq) FROM events e WHERE e.run_id = r.run_id) AS last FROM runs r ORDER BY started_at DESC, run_id DESC" +
      (options.limit === undefined ? "" : " LIMIT ?");
    const statement = this.#db.prepare(sql);
    const rows = (options.limit === undefined ? statement.all() : statement.all(options.limit)) as { summary: string; last: number }[];
    return rows.map((row) => ({ ...(JSON.parse(row.summary) as RunSummary), events: row.last }));
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
