import { resolve } from "node:path";
import { DEFAULT_DB_PATH, SqliteRunStore } from "../journal/index.js";

export function openStore(cwd: string, db: string | undefined, configured?: string): SqliteRunStore {
  return new SqliteRunStore(resolve(cwd, db ?? configured ?? DEFAULT_DB_PATH));
}
