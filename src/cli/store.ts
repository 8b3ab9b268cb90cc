import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { RetraceError, StoreError } from "../errors/index.js";
import { DEFAULT_DB_PATH, SqliteRunStore, sqliteFileFacts, STORE_SCHEMA_VERSION } from "../store/index.js";
import { shellWord } from "../text/index.js";

/**
 * The run store a command uses: --db, else the config's store.path (already resolved against
 * the config's folder), else .retrace/runs.db. Commands that only read or amend existing runs
 * pass `mustExist`, so a mistyped --db is an error rather than a new empty database. A file
 * that is there but is not a Retrace store is refused before anything writes to it.
 */
export function openStore(
  cwd: string,
  db: string | undefined,
  configured?: string,
  options: { mustExist?: boolean; readonly?: boolean; synchronous?: "NORMAL" | "FULL" } = {},
): SqliteRunStore {
  const path = db !== undefined ? resolve(cwd, db) : (configured ?? resolve(cwd, DEFAULT_DB_PATH));
  const file = shownPath(cwd, path);
  if (existsSync(path)) checkStoreFile(path, file, { mayBeNew: !options.mustExist });
  else if (options.mustExist) {
    throw new StoreError("store_open", `no run store here${db === undefined ? " (pass --db <path> if the runs are elsewhere)" : ""}`, { file });
  }
  try {
    // Commands that only read open the file read-only: they never create tables, switch the
    // journal mode or set a version in a file that may not even be ours.
    return new SqliteRunStore(path, {
      ...(options.readonly ? { readonly: true } : {}),
      ...(options.synchronous ? { synchronous: options.synchronous } : {}),
    });
  } catch (error) {
    if (error instanceof RetraceError) throw error;
    throw new StoreError("store_open", `cannot open the run store: ${(error as Error).message}`, { file });
  }
}

/** The ` --db <path>` a printed command needs to reach this store (shell-quoted), or "" for the default one. */
export function dbFlag(cwd: string, store: SqliteRunStore): string {
  return store.path === resolve(cwd, DEFAULT_DB_PATH) ? "" : ` --db ${shellWord(shownPath(cwd, store.path))}`;
}

/** Where a command reads, for messages: the store's path as the user would type it. */
export function storeLabel(cwd: string, store: SqliteRunStore): string {
  return shownPath(cwd, store.path);
}

/** Relative to the working directory when the file is under it, else absolute. */
function shownPath(cwd: string, path: string): string {
  const fromCwd = relative(cwd, path);
  return fromCwd === "" || fromCwd.startsWith("..") || isAbsolute(fromCwd) ? path : fromCwd;
}

const SQLITE_HEADER = "SQLite format 3\0";

/**
 * Looks at an existing --db without changing it: a directory, a device, a file that is not
 * SQLite, or an SQLite database of something else would otherwise get Retrace's tables (or a
 * WAL header) written into it. `mayBeNew`: an empty file may become a new store (`run`).
 */
function checkStoreFile(path: string, file: string, { mayBeNew }: { mayBeNew: boolean }): void {
  const stat = statSync(path);
  if (stat.isDirectory()) throw new StoreError("store_open", "is a folder, not a run store file; pass --db <file>", { file });
  if (!stat.isFile()) throw new StoreError("store_open", "is not a regular file, so it cannot be a run store; pass --db <file>", { file });
  if (stat.size === 0) {
    if (mayBeNew) return;
    throw new StoreError("store_foreign", "is an empty file, not a Retrace run store", { file });
  }
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, "r");
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) throw new StoreError("store_foreign", "is not an SQLite file, so it is not a Retrace run store", { file });
  let version: number;
  let tables: string[];
  try {
    ({ version, tables } = sqliteFileFacts(path));
  } catch (error) {
    throw new StoreError("store_foreign", `cannot be read as a run store: ${(error as Error).message}`, { file });
  }
  if (version > STORE_SCHEMA_VERSION) {
    throw new StoreError(
      "store_version",
      `this run store uses schema version ${version}, written by a newer Retrace; this version reads up to ${STORE_SCHEMA_VERSION}. Upgrade Retrace or use another --db.`,
      { file },
    );
  }
  const foreign = tables.filter((name) => name !== "events" && name !== "leases");
  if (foreign.length > 0 || (version === 0 && tables.length > 0) || (version > 0 && !tables.includes("events"))) {
    const holds = tables.length ? `its tables are ${tables.join(", ")}` : "it has no tables";
    throw new StoreError("store_foreign", `is an SQLite database but not a Retrace run store (${holds}); pass --db <file> of a run store`, { file });
  }
  if (tables.length === 0 && !mayBeNew) throw new StoreError("store_foreign", "is an empty SQLite database, not a Retrace run store", { file });
}
