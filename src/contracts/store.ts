import type { RunEvent, RunStatus } from "./events.js";
import type { Usage } from "./model.js";

export interface RunSummary {
  runId: string;
  agent: string;
  status: RunStatus;
  startedAt: string;
  updatedAt: string;
  events: number;
  steps: number;
  usage: Usage;
  cost: number | null;
  output: string;
  parentRunId: string | undefined;
}

/**
 * Where run logs live. Appends are guarded by seq: the first event's seq must be exactly one
 * past the run's last, so two writers can never interleave a run, and a gap is refused too.
 */
export interface RunStore {
  /** Appends events of one run atomically; throws SeqConflictError if `events[0].seq` is not next. */
  append(events: readonly RunEvent[]): void;
  /** Events of a run from `fromSeq` (default 1) through `toSeq` (default: the last), in seq order. */
  read(runId: string, fromSeq?: number, toSeq?: number): RunEvent[];
  /** The last seq of a run, 0 if it has none. */
  lastSeq(runId: string): number;
  list(options?: { limit?: number }): RunSummary[];
  close(): void;
}
