import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { SeqConflictError, StoreError } from "../errors/index.js";
import { checkStoredBodies, encodeEvents, parseEvent, SUMMARY_EVENT_TYPES, summarize } from "../journal/index.js";
import { type RunEvent } from "../contracts/index.js";
import type { RunStore, RunSummary } from "../contracts/index.js";

// The native module is loaded on first use, so what never opens a store (eval --mock) never pays for it.
const loadSqlite = (): typeof Database => createRequire(import.meta.url)("better-sqlite3") as typeof Database;

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
-- Listing runs is derived from the log. A partial index holds only run.started rows, so it
-- costs the other appends nothing.
CREATE INDEX IF NOT EXISTS events_run_started ON events (run_id) WHERE type = 'run.started';
`;

const LIFECYCLE = [...SUMMARY_EVENT_TYPES].map((type) => `'${type}'`).join(", ");

type Statement = Database.Statement<unknown[], unknown>;

/** An event checked for storing, with the exact bytes to keep. */
interface Checked {
  event: RunEvent;
  body: string;
}

/** The run log in one SQLite file (WAL), safe for several processes to share. */
export class SqliteRunStore implements RunStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #insert: Statement;
  readonly #lastSeq: Statement;
  readonly #readFrom: Statement;
  readonly #listRuns: Statement;
  readonly #appendTx: (events: readonly Checked[]) => void;
  /** The last seq this connection wrote or read per run: a hint that saves a query, never trusted alone. */
  readonly #seen = new Map<string, number>();

  constructor(path: string = DEFAULT_DB_PATH) {
    this.path = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    try {
      this.#db = new (loadSqlite())(path);
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
    this.#readFrom = db.prepare("SELECT seq, body FROM events WHERE run_id = ? AND seq >= ? AND seq <= ? ORDER BY seq");
    // For each run: its start, its last run.finished and its latest lifecycle event — all a summary needs.
    this.#listRuns = db.prepare(`
      SELECT s.run_id AS runId,
        s.body AS started,
        (SELECT body FROM events f WHERE f.run_id = s.run_id AND f.type = 'run.finished' ORDER BY f.seq DESC LIMIT 1) AS finished,
        (SELECT body FROM events l WHERE l.run_id = s.run_id AND l.type IN (${LIFECYCLE}) ORDER BY l.seq DESC LIMIT 1) AS latest,
        (SELECT max(seq) FROM events m WHERE m.run_id = s.run_id) AS last,
        (SELECT json_extract(body, '$.at') FROM events z WHERE z.run_id = s.run_id ORDER BY z.seq DESC LIMIT 1) AS updatedAt
      FROM events s WHERE s.type = 'run.started'
      ORDER BY json_extract(s.body, '$.at') DESC, s.run_id DESC
      LIMIT ?`);
    this.#appendTx = db.transaction((events: readonly Checked[]) => this.#appendAll(events)).immediate;
  }

  append(events: readonly RunEvent[]): void {
    this.appendRaw(encodeEvents(events, { file: this.path }));
  }

  appendRaw(bodies: readonly string[]): RunEvent[] {
    // Every body is checked before anything is written, exactly as the memory store checks it.
    const checked = checkStoredBodies(bodies, { file: this.path }).map((event, index) => ({ event, body: bodies[index] as string }));
    const first = checked[0];
    if (!first) return [];
    if (checked.length === 1) this.#insertOne(first);
    else {
      try {
        this.#appendTx(checked);
      } catch (error) {
        // The transaction rolled back: what this connection thought it wrote is not there.
        this.#seen.delete(first.event.runId);
        throw error;
      }
    }
    return checked.map((item) => item.event);
  }

  /**
   * The seq guard. The primary key refuses a duplicate, so of two writers only one can add a
   * given seq. A gap is caught against the last seq this connection saw for the run: when the
   * new seq is not the next one, the database is asked, and it alone decides.
   */
  #insertOne({ event, body }: Checked): void {
    const known = this.#seen.get(event.runId);
    // The first event of a run this connection has not seen needs no query: seq 1 leaves no
    // gap, and if the run exists the primary key refuses the duplicate below.
    if (known === undefined ? event.seq !== 1 : event.seq !== known + 1) {
      const last = this.lastSeq(event.runId);
      if (event.seq !== last + 1) throw new SeqConflictError(event.runId, event.seq, last);
    }
    try {
      this.#insert.run(event.runId, event.seq, event.type, body);
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        this.#seen.delete(event.runId);
        throw new SeqConflictError(event.runId, event.seq, this.lastSeq(event.runId));
      }
      throw error;
    }
    this.#seen.set(event.runId, event.seq);
  }

  #appendAll(events: readonly Checked[]): void {
    const runId = (events[0] as Checked).event.runId;
    for (const checked of events) {
      if (checked.event.runId !== runId) throw new StoreError("store_corrupt", "one append must hold events of one run", { runId });
      this.#insertOne(checked);
    }
  }

  read(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): RunEvent[] {
    const rows = this.#readFrom.all(runId, fromSeq, toSeq) as { seq: number; body: string }[];
    return rows.map((row) => parseEvent(row.body, { file: this.path, runId, seq: row.seq }));
  }

  /** The stored bytes of each event, exactly as written (for `trace --json` and bundles). */
  readRaw(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): string[] {
    return (this.#readFrom.all(runId, fromSeq, toSeq) as { body: string }[]).map((row) => row.body);
  }

  lastSeq(runId: string): number {
    return (this.#lastSeq.get(runId) as number | null) ?? 0;
  }

  list(options: { limit?: number } = {}): RunSummary[] {
    const rows = this.#listRuns.all(options.limit ?? -1) as {
      runId: string;
      started: string;
      finished: string | null;
      latest: string | null;
      last: number;
      updatedAt: string;
    }[];
    return rows.map((row) => {
      const place = { file: this.path, runId: row.runId };
      const lifecycle = [row.started, row.finished, row.latest]
        .filter((body): body is string => body !== null)
        .map((body) => parseEvent(body, place))
        .sort((a, b) => a.seq - b.seq)
        .filter((event, index, all) => index === 0 || all[index - 1]?.seq !== event.seq);
      const summary = summarize(lifecycle) as RunSummary;
      return { ...summary, events: row.last, updatedAt: row.updatedAt };
    });
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
