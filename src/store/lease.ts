import { hostname } from "node:os";
import type Database from "better-sqlite3";
import { RunBusyError } from "../errors/index.js";
import type { LeaseHolder } from "./lease-holder.js";

/**
 * One runner per run. A process that drives a run holds its lease: a row in the store with the
 * holder's pid, host, start and an expiry it keeps renewing. A second process that wants the
 * run is refused while the lease is live. A holder that died without releasing it (SIGKILL,
 * power) blocks the run only until the expiry — at once when it ran on this host and its pid
 * is gone — and even then it cannot write: every append of a lease holder is conditional on
 * still holding it, in the same statement, so a holder that stalled past its expiry and lost
 * the run to another process has its next write refused instead of interleaved.
 */
export const LEASES_SCHEMA = `
CREATE TABLE IF NOT EXISTS leases (
  run_id TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  since TEXT NOT NULL,
  expires INTEGER NOT NULL
) WITHOUT ROWID;
`;

export interface LeaseOptions {
  /** How long the lease lives without renewal. */
  ttlMs?: number;
  /** Wall-clock ms; a lease is infrastructure, not part of any run's log. */
  now?: () => number;
}

/** Whether a holder is certainly gone: only knowable for a process on this host. */
function certainlyDead(holder: LeaseHolder, host: string): boolean {
  if (holder.host !== host) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the pid exists (another user's process); only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export class Leases {
  readonly #db: Database.Database;
  readonly #host = hostname();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** The live holder of a run, or undefined when nobody (alive) holds it. */
  holder(runId: string, now: number): LeaseHolder | undefined {
    const row = this.#row(runId);
    if (!row || row.expires <= now || certainlyDead(row, this.#host)) return undefined;
    return row;
  }

  #row(runId: string): (LeaseHolder & { token: string }) | undefined {
    return this.#db.prepare("SELECT run_id AS runId, token, pid, host, since, expires FROM leases WHERE run_id = ?").get(runId) as
      | (LeaseHolder & { token: string })
      | undefined;
  }

  /** Takes the run for `token`, or throws RunBusyError naming the live holder. */
  acquire(runId: string, token: string, ttlMs: number, now: number): void {
    this.#db
      .transaction(() => {
        const row = this.#row(runId);
        if (row && row.token !== token && row.expires > now && !certainlyDead(row, this.#host)) throw new RunBusyError(row);
        this.#db
          .prepare("INSERT OR REPLACE INTO leases (run_id, token, pid, host, since, expires) VALUES (?, ?, ?, ?, ?, ?)")
          .run(runId, token, process.pid, this.#host, new Date(now).toISOString(), now + ttlMs);
      })
      .immediate();
  }

  /** Extends the lease; false when it was lost (another process took the run). */
  renew(runId: string, token: string, ttlMs: number, now: number): boolean {
    return this.#db.prepare("UPDATE leases SET expires = ? WHERE run_id = ? AND token = ?").run(now + ttlMs, runId, token).changes === 1;
  }

  release(runId: string, token: string): void {
    this.#db.prepare("DELETE FROM leases WHERE run_id = ? AND token = ?").run(runId, token);
  }
}
