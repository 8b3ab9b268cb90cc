import { RunBusyError, TamperedLogError } from "../errors/index.js";
import { familyRoot, type SqliteRunStore } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";
import type { CliIO } from "./io.js";

/**
 * Runs `work` while this process holds the run family's lease: one runner per run, for `run`,
 * `resume` and `approve` alike. A live holder elsewhere means exit 4 with who holds it and
 * since when; nothing is read, decided or written.
 */
export async function withRunLease(store: SqliteRunStore, runId: string, io: CliIO, work: () => Promise<ExitCode> | ExitCode): Promise<ExitCode> {
  let lease;
  try {
    lease = store.takeRun(familyRoot(store, runId));
  } catch (error) {
    if (!(error instanceof RunBusyError)) throw error;
    io.stderr(`error: ${error.message}; nothing was done. Wait for it to finish (a process that died releases the run when its lease lapses).\n`);
    return ExitCode.busy;
  }
  try {
    return await work();
  } finally {
    lease.release();
  }
}

/** A tampered log is its own exit code, so scripts can tell it from bad usage. */
export function tamperedExit(io: CliIO, error: unknown): ExitCode {
  if (!(error instanceof TamperedLogError)) throw error;
  io.stderr(`error: ${error.describe()}\n`);
  return ExitCode.tampered;
}
