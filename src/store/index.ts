/** Where run logs live (SQLite, memory) and the writer that appends to them. */
export { MemoryRunStore } from "./memory-store.js";
export { SqliteRunStore, sqliteFileFacts, STORE_SCHEMA_VERSION, DEFAULT_DB_PATH, type SqliteStoreOptions, type RunLease } from "./sqlite-store.js";
export { RunLog, type LogPayload, type RunLogOptions } from "./run-log.js";
export { checkChain, chainLink, type ChainReport } from "./chain.js";
export { DEFAULT_LEASE_MS, type LeaseHolder } from "./lease-holder.js";
export { driveRun, familyRoot, type DriveLease } from "./lease-driver.js";
