import { hostname } from "node:os";
import type { RunStore } from "../contracts/index.js";
import { RunBusyError } from "../errors/index.js";
import type { RunLease, SqliteRunStore } from "./sqlite-store.js";

/** A run being driven by this process; `release` gives it up (idempotent). */
export interface DriveLease {
  /** The run at the top of the family: the one the lease is on. */
  readonly root: string;
  release(): void;
}

interface Driver {
  pid: number;
  host: string;
  since: string;
}

/** Families driven in this process, per store object: two drivers in one process exclude each other too. */
const driving = new WeakMap<RunStore, Map<string, Driver>>();

/**
 * The store's cross-process leases, when it has them: a writable SQLite store. Asked by shape,
 * not by class, so a store from another copy of the package (a bundle and its source) counts too.
 */
function leasing(store: RunStore): Pick<SqliteRunStore, "takeRun" | "drives"> | undefined {
  const candidate = store as Partial<Pick<SqliteRunStore, "takeRun" | "drives" | "readonly">>;
  return typeof candidate.takeRun === "function" && typeof candidate.drives === "function" && candidate.readonly !== true
    ? (candidate as Pick<SqliteRunStore, "takeRun" | "drives">)
    : undefined;
}

/** The run at the top of a run's family (a sub-agent run is driven through its parent). */
export function familyRoot(store: RunStore, runId: string): string {
  let current = runId;
  for (const seen = new Set<string>(); !seen.has(current); ) {
    seen.add(current);
    const first = store.read(current, 1, 1)[0];
    if (first?.type !== "run.started" || !first.parent) break;
    current = first.parent.runId;
  }
  return current;
}

/**
 * One runner per run, for the library as for the CLI: takes the run's family for a driver in
 * this process, or throws RunBusyError naming the holder (pid, host, since). In a SQLite store
 * that is the store's lease (lease.ts), so a driver in another process is refused as well —
 * unless this store already holds it (the CLI takes it before it opens the run, and is the
 * driver). Within one process the families being driven are kept here, for every kind of store,
 * so two concurrent resumes of one run on one store object cannot both proceed either.
 */
export function driveRun(store: RunStore, runId: string): DriveLease {
  const root = familyRoot(store, runId);
  let families = driving.get(store);
  const current = families?.get(root);
  if (current) throw new RunBusyError({ runId: root, ...current });
  const leased = leasing(store);
  const lease: RunLease | undefined = leased && !leased.drives(root) ? leased.takeRun(root) : undefined;
  if (!families) {
    families = new Map();
    driving.set(store, families);
  }
  // Wall-clock time for people reading a refusal; it is never written to a run's log.
  const driver: Driver = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  families.set(root, driver);
  let released = false;
  return {
    root,
    release() {
      if (released) return;
      released = true;
      if (families?.get(root) === driver) families.delete(root);
      lease?.release();
    },
  };
}
