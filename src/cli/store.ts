import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { StoreError } from "../errors/index.js";
import { DEFAULT_DB_PATH, SqliteRunStore } from "../store/index.js";

/**
 * The run store a command uses: --db, else the config's store.path (already resolved against
 * the config's folder), else .retrace/runs.db. Commands that only read or amend existing runs
 * pass `mustExist`, so a mistyped --db is an error rather than a new empty database.
 */
export function openStore(cwd: string, db: string | undefined, configured?: string, options: { mustExist?: boolean } = {}): SqliteRunStore {
  const path = db !== undefined ? resolve(cwd, db) : (configured ?? resolve(cwd, DEFAULT_DB_PATH));
  if (options.mustExist && !existsSync(path)) {
    throw new StoreError("store_open", `no run store here${db === undefined ? " (pass --db <path> if the runs are elsewhere)" : ""}`, { file: relative(cwd, path) || path });
  }
  return new SqliteRunStore(path);
}

/** The --db to repeat in printed hints, or undefined when the store is the default one. */
export function dbHint(cwd: string, store: SqliteRunStore): string | undefined {
  return store.path === resolve(cwd, DEFAULT_DB_PATH) ? undefined : relative(cwd, store.path) || store.path;
}
