export { fold, initialState, toolResultContent, type RunState, type PendingCall, type PendingApproval } from "./fold.js";
export type { RunStore, RunSummary } from "./store.js";
export { MemoryRunStore } from "./memory-store.js";
export { SqliteRunStore, STORE_SCHEMA_VERSION, DEFAULT_DB_PATH } from "./sqlite-store.js";
export { RunLog } from "./run-log.js";
