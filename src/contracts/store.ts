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
 *
 * A store keeps each event as its canonical bytes and hands those bytes back unchanged
 * (`readRaw`); every store validates an append the same way (valid JSON, canonical, a valid
 * event) and refuses what it cannot keep with an EventFormatError, before anything is written.
 */
export interface RunStore {
  /** Appends events of one run atomically, serialised canonically; throws SeqConflictError if `events[0].seq` is not next. */
  append(events: readonly RunEvent[]): void;
  /** Appends the canonical bytes of events of one run atomically (what RunLog writes); returns the events they hold, as a reader will see them. */
  appendRaw(bodies: readonly string[]): RunEvent[];
  /** Events of a run from `fromSeq` (default 1) through `toSeq` (default: the last), in seq order; fresh objects each call. */
  read(runId: string, fromSeq?: number, toSeq?: number): RunEvent[];
  /** The stored bytes of those events, exactly as appended. */
  readRaw(runId: string, fromSeq?: number, toSeq?: number): string[];
  /** The last seq of a run, 0 if it has none. */
  lastSeq(runId: string): number;
  list(options?: { limit?: number }): RunSummary[];
  close(): void;
}
