import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { SeqConflictError, StoreError, TamperedLogError } from "../errors/index.js";
import { CHAIN_START, chainLink, checkChain, type ChainReport } from "./chain.js";
import { Leases, LEASES_SCHEMA } from "./lease.js";
import { openDatabase } from "./sqlite-driver.js";
import { DEFAULT_LEASE_MS, type LeaseHolder } from "./lease-holder.js";
import { checkEvents, checkStoredBodies, parseEvent, SUMMARY_EVENT_TYPES, summarize } from "../journal/index.js";
import { type RunEvent } from "../contracts/index.js";
import type { RunStore, RunSummary } from "../contracts/index.js";

/**
 * What an existing SQLite file holds, read without changing it: its user_version and its
 * tables' names, in order. Throws what SQLite says of a file it cannot read.
 */
export function sqliteFileFacts(path: string): { version: number; tables: string[] } {
  const db = openDatabase(path, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma("user_version", { simple: true }) as number;
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return { version, tables };
  } finally {
    db.close();
  }
}

/** 2: each row carries its hash-chain link (`chain`), and runs have leases. */
export const STORE_SCHEMA_VERSION = 2;
export const DEFAULT_DB_PATH = ".retrace/runs.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  chain TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
-- Listing runs is derived from the log. A partial index holds only run.started rows, so it
-- costs the other appends nothing.
CREATE INDEX IF NOT EXISTS events_run_started ON events (run_id) WHERE type = 'run.started';
`;

const LIFECYCLE = [...SUMMARY_EVENT_TYPES].map((type) => `'${type}'`).join(", ");

type Statement = Database.Statement<unknown[], unknown>;

export interface SqliteStoreOptions {
  /**
   * Opens an existing store without changing anything in the file: no tables, no journal
   * mode, no version. For commands that only read (runs, trace, verify).
   */
  readonly?: boolean;
  /**
   * NORMAL (default): with WAL, a commit survives the process being killed at any instant;
   * an OS crash or power loss may lose the last commits (never corrupt the file).
   * FULL: every commit is on disk before it returns, so it survives power loss too; slower.
   */
  synchronous?: "NORMAL" | "FULL";
}

/** A run this store's process drives; see lease.ts. */
export interface RunLease {
  readonly runId: string;
  /** Still ours: renewed in time, and never taken by another process. */
  readonly held: boolean;
  release(): void;
}

/** The run log in one SQLite file (WAL), safe for several processes to share. */
export class SqliteRunStore implements RunStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly readonly: boolean;
  readonly #insert: Statement | undefined;
  readonly #insertLeased: Statement | undefined;
  readonly #lastLink: Statement;
  readonly #chainRows: Statement | undefined;
  readonly #leases: Leases | undefined;
  /** The runs this store's process drives, by the run at the top of each family. */
  readonly #held = new Map<string, { runId: string; token: string; timer: NodeJS.Timeout; held: boolean }>();
  /** The top of each run's family, as its run.started says (a fact that never changes). */
  readonly #roots = new Map<string, string>();
  readonly #lastSeq: Statement;
  readonly #readFrom: Statement;
  readonly #listRuns: Statement;
  readonly #appendTx: (events: readonly RunEvent[], bodies: readonly string[]) => void;
  /** The last seq and chain link this connection wrote or read per run: a hint that saves a query, never trusted alone. */
  readonly #seen = new Map<string, { seq: number; link: string }>();

  constructor(path: string = DEFAULT_DB_PATH, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.readonly = options.readonly === true;
    if (path !== ":memory:" && !this.readonly) mkdirSync(dirname(path), { recursive: true });
    try {
      this.#db = openDatabase(path, this.readonly ? { readonly: true, fileMustExist: true } : {});
    } catch (error) {
      throw new StoreError("store_open", `cannot open the run store: ${(error as Error).message}`, { file: path });
    }
    const db = this.#db;
    let version: number;
    try {
      version = db.pragma("user_version", { simple: true }) as number;
    } catch (error) {
      db.close();
      throw new StoreError("store_foreign", `is not a Retrace run store (${(error as Error).message})`, { file: path });
    }
    if (version > STORE_SCHEMA_VERSION) {
      db.close();
      throw new StoreError(
        "store_version",
        `this run store uses schema version ${version}, written by a newer Retrace; this version reads up to ${STORE_SCHEMA_VERSION}. Upgrade Retrace or use another --db.`,
        { file: path },
      );
    }
    db.pragma("busy_timeout = 5000");
    const columns = () => new Set((db.prepare("SELECT name FROM pragma_table_info('events')").pluck().all() as string[]));
    if (this.readonly) {
      if (version === 0 || !columns().has("body")) {
        db.close();
        throw new StoreError("store_foreign", "is not a Retrace run store (it has no events table)", { file: path });
      }
    } else {
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
      if (version < STORE_SCHEMA_VERSION) migrate(db);
    }
    const chained = columns().has("chain");
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    this.#leases = tables.has("leases") ? new Leases(db) : undefined;
    this.#insert = this.readonly ? undefined : db.prepare("INSERT INTO events (run_id, seq, type, body, chain) VALUES (?, ?, ?, ?, ?)");
    this.#insertLeased = this.readonly
      ? undefined
      : db.prepare(
          "INSERT INTO events (run_id, seq, type, body, chain) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM leases WHERE run_id = ? AND token = ?)",
        );
    this.#lastLink = db.prepare(`SELECT seq, ${chained ? "chain" : "NULL"} AS link FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1`);
    this.#chainRows = chained ? db.prepare("SELECT seq, body, chain FROM events WHERE run_id = ? ORDER BY seq") : undefined;
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
    this.#appendTx = db.transaction((events: readonly RunEvent[], bodies: readonly string[]) => this.#appendAll(events, bodies)).immediate;
  }

  append(events: readonly RunEvent[]): void {
    this.#refuseReadonly();
    const checked = checkEvents(events, { file: this.path });
    this.#write(checked.events, checked.bodies);
  }

  appendRaw(bodies: readonly string[]): RunEvent[] {
    this.#refuseReadonly();
    // Every body is checked before anything is written, exactly as the memory store checks it.
    return this.#write(checkStoredBodies(bodies, { file: this.path }), bodies);
  }

  #refuseReadonly(): void {
    if (this.readonly) throw new StoreError("store_readonly", "this store was opened read-only", { file: this.path });
  }

  /** Writes checked events, each as its body. */
  #write(events: RunEvent[], bodies: readonly string[]): RunEvent[] {
    const first = events[0];
    if (!first) return events;
    if (events.length === 1) this.#insertOne(first, bodies[0] as string);
    else {
      try {
        this.#appendTx(events, bodies);
      } catch (error) {
        // The transaction rolled back: what this connection thought it wrote is not there.
        this.#seen.delete(first.runId);
        throw error;
      }
    }
    return events;
  }

  /**
   * The seq guard. The primary key refuses a duplicate, so of two writers only one can add a
   * given seq. A gap is caught against the last seq this connection saw for the run: when the
   * new seq is not the next one, the database is asked, and it alone decides.
   */
  #insertOne(event: RunEvent, body: string): void {
    let known = this.#seen.get(event.runId);
    // The first event of a run this connection has not seen needs no query: seq 1 leaves no
    // gap and follows the empty link, and if the run exists the primary key refuses the duplicate.
    if (known === undefined && event.seq === 1) known = { seq: 0, link: CHAIN_START };
    else if (known === undefined || event.seq !== known.seq + 1) {
      const last = (this.#lastLink.get(event.runId) as { seq: number; link: string | null } | undefined) ?? { seq: 0, link: CHAIN_START };
      if (event.seq !== last.seq + 1) throw new SeqConflictError(event.runId, event.seq, last.seq);
      known = { seq: last.seq, link: last.link ?? CHAIN_START };
    }
    const link = chainLink(known.link, body);
    try {
      const lease = this.#held.size > 0 ? this.#held.get(this.#rootOf(event)) : undefined;
      if (lease) {
        // Written only while this process still holds the run: a holder that lost it writes nothing.
        const written = (this.#insertLeased as Statement).run(event.runId, event.seq, event.type, body, link, lease.runId, lease.token);
        if (written.changes === 0) {
          lease.held = false;
          throw new StoreError("lease_lost", `this process no longer holds run ${lease.runId}: another process took it over, so nothing more is written`, {
            file: this.path,
            runId: event.runId,
            seq: event.seq,
          });
        }
      } else (this.#insert as Statement).run(event.runId, event.seq, event.type, body, link);
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        this.#seen.delete(event.runId);
        throw new SeqConflictError(event.runId, event.seq, this.lastSeq(event.runId));
      }
      throw error;
    }
    const seen = this.#seen.get(event.runId);
    if (seen) {
      seen.seq = event.seq;
      seen.link = link;
    } else this.#seen.set(event.runId, { seq: event.seq, link });
  }

  #appendAll(events: readonly RunEvent[], bodies: readonly string[]): void {
    const runId = (events[0] as RunEvent).runId;
    events.forEach((event, index) => {
      if (event.runId !== runId) throw new StoreError("store_corrupt", "one append must hold events of one run", { runId });
      this.#insertOne(event, bodies[index] as string);
    });
  }

  /**
   * A whole log (from seq 1) is checked against its hash chain as it is read, in the same
   * pass: what a resume folds and sends to the model is what was written, or a
   * TamperedLogError naming the first row that is not.
   */
  read(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): RunEvent[] {
    if (fromSeq <= 1 && toSeq === Number.MAX_SAFE_INTEGER && this.#chainRows) {
      const rows = this.#chainRows.all(runId) as { seq: number; body: string; chain: string | null }[];
      const report = checkChain(rows);
      if (!report.ok) throw new TamperedLogError(runId, report.seq, report.problem, this.path);
      return rows.map((row) => parseEvent(row.body, { file: this.path, runId, seq: row.seq }));
    }
    const rows = this.#readFrom.all(runId, fromSeq, toSeq) as { seq: number; body: string }[];
    return rows.map((row) => parseEvent(row.body, { file: this.path, runId, seq: row.seq }));
  }

  /**
   * The stored bytes of each event, exactly as written (for `trace --json` and bundles). A whole
   * log is checked against its chain as `read` checks it: a bundle never carries edited rows.
   */
  readRaw(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): string[] {
    if (fromSeq <= 1 && toSeq === Number.MAX_SAFE_INTEGER && this.#chainRows) {
      const rows = this.#chainRows.all(runId) as { seq: number; body: string; chain: string | null }[];
      const report = checkChain(rows);
      if (!report.ok) throw new TamperedLogError(runId, report.seq, report.problem, this.path);
      return rows.map((row) => row.body);
    }
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

  /** The connection's durability settings, as SQLite reports them. */
  get settings(): { journalMode: string; synchronous: "OFF" | "NORMAL" | "FULL" | "EXTRA" } {
    const levels = ["OFF", "NORMAL", "FULL", "EXTRA"] as const;
    return {
      journalMode: String(this.#db.pragma("journal_mode", { simple: true })),
      synchronous: levels[Number(this.#db.pragma("synchronous", { simple: true }))] ?? "FULL",
    };
  }

  /** The run and its descendants (child runs are named `<parent>.<callId>`). */
  family(runId: string): string[] {
    const children = this.#db
      .prepare("SELECT run_id FROM events WHERE type = 'run.started' AND run_id >= ? AND run_id < ? ORDER BY run_id")
      .pluck()
      .all(`${runId}.`, `${runId}/`) as string[];
    return [runId, ...children];
  }

  /** Checks a run's hash chain from its first row to its last. */
  verify(runId: string): ChainReport {
    if (!this.#chainRows) return { ok: false, events: this.lastSeq(runId), seq: 1, problem: "this store predates hash chains (schema version 1); open it once with a writable command to add them" };
    return checkChain(this.#chainRows.all(runId) as { seq: number; body: string; chain: string | null }[]);
  }

  /**
   * Takes the run for this process (see lease.ts) and keeps renewing the lease until released
   * or the store is closed; throws RunBusyError when a live process holds it. While held, every
   * append this store makes is conditional on still holding it.
   */
  takeRun(runId: string, options: { ttlMs?: number; now?: () => number } = {}): RunLease {
    const leases = this.#leases;
    if (!leases || this.readonly) throw new StoreError("store_readonly", "a run can only be taken in a store opened for writing", { file: this.path });
    if (this.#held.has(runId)) throw new StoreError("store_corrupt", `this store already drives run ${runId}`, { file: this.path, runId });
    const ttlMs = options.ttlMs ?? leaseMsFromEnv() ?? DEFAULT_LEASE_MS;
    const now = options.now ?? (() => Date.now());
    const token = `${hostname()}:${process.pid}:${randomUUID()}`;
    leases.acquire(runId, token, ttlMs, now());
    const timer = setInterval(() => {
      if (!state.held || !this.#db.open) return;
      try {
        state.held = leases.renew(runId, token, ttlMs, now());
      } catch {
        // A busy database delays one renewal; the next one, well within the lease, tries again.
      }
    }, Math.max(50, Math.floor(ttlMs / 3)));
    timer.unref();
    const state = { runId, token, timer, held: true };
    this.#held.set(runId, state);
    return {
      runId,
      get held() {
        return state.held;
      },
      release: () => {
        clearInterval(timer);
        if (this.#held.get(runId) === state) this.#held.delete(runId);
        if (state.held && this.#db.open) leases.release(runId, token);
        state.held = false;
      },
    };
  }

  /** Whether this store (this process) has taken the run and still holds it. */
  drives(runId: string): boolean {
    return this.#held.get(runId)?.held === true;
  }

  /** The run at the top of the family an event's run belongs to: whose lease guards its appends. */
  #rootOf(event: RunEvent): string {
    return this.#familyRoot(event.runId, event.type === "run.started" ? event : undefined);
  }

  #familyRoot(runId: string, started?: RunEvent): string {
    const known = this.#roots.get(runId);
    if (known !== undefined) return known;
    let first = started;
    if (!first) {
      const body = (this.#readFrom.get(runId, 1, 1) as { body: string } | undefined)?.body;
      first = body === undefined ? undefined : (JSON.parse(body) as RunEvent);
    }
    const parent = first?.type === "run.started" ? first.parent : undefined;
    // A run with no start yet says nothing about its family: not cached, asked again next time.
    if (!first) return runId;
    const root = parent && parent.runId !== runId ? this.#familyRoot(parent.runId) : runId;
    this.#roots.set(runId, root);
    return root;
  }

  /** The live process driving a run, if any: what tells a crashed run from a running one. */
  holder(runId: string, now: number = Date.now()): LeaseHolder | undefined {
    return this.#leases?.holder(runId, now);
  }

  close(): void {
    for (const lease of this.#held.values()) {
      clearInterval(lease.timer);
      if (lease.held && this.#db.open) this.#leases?.release(lease.runId, lease.token);
    }
    this.#held.clear();
    if (this.#db.open) this.#db.close();
  }
}

/** RETRACE_LEASE_MS: a shorter lease for tests and harnesses that kill holders on purpose. */
function leaseMsFromEnv(): number | undefined {
  const value = Number(process.env.RETRACE_LEASE_MS);
  return Number.isFinite(value) && value >= 100 ? value : undefined;
}

/**
 * Brings a store to the current version in one transaction, so two processes opening an old
 * store at once cannot both migrate it. Version 1 rows get their chain links computed here.
 */
function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version >= STORE_SCHEMA_VERSION) return;
    db.exec(SCHEMA);
    db.exec(LEASES_SCHEMA);
    if (version === 1) {
      db.exec("ALTER TABLE events ADD COLUMN chain TEXT");
      const update = db.prepare("UPDATE events SET chain = ? WHERE run_id = ? AND seq = ?");
      let runId: string | undefined;
      let link = CHAIN_START;
      for (const row of db.prepare("SELECT run_id AS runId, seq, body FROM events ORDER BY run_id, seq").all() as { runId: string; seq: number; body: string }[]) {
        if (row.runId !== runId) {
          runId = row.runId;
          link = CHAIN_START;
        }
        link = chainLink(link, row.body);
        update.run(link, row.runId, row.seq);
      }
    }
    db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
  }).immediate();
}
