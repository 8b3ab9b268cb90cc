import { SeqConflictError, StoreError } from "../errors/index.js";
import type { RunEvent } from "../events/index.js";
import type { RunStore, RunSummary } from "./store.js";
import { SUMMARY_EVENT_TYPES, updateSummary } from "./summary.js";

/** A RunStore in memory: for tests, `--mock` evals and anything that need not outlive the process. */
export class MemoryRunStore implements RunStore {
  readonly #logs = new Map<string, RunEvent[]>();
  readonly #summaries = new Map<string, RunSummary>();

  append(events: readonly RunEvent[]): void {
    const first = events[0];
    if (!first) return;
    const log = this.#logs.get(first.runId) ?? [];
    let expected = log.length + 1;
    for (const event of events) {
      if (event.runId !== first.runId) throw new StoreError("store_corrupt", "one append must hold events of one run", { runId: first.runId });
      if (event.seq !== expected) throw new SeqConflictError(first.runId, event.seq, expected - 1);
      expected++;
    }
    log.push(...events);
    this.#logs.set(first.runId, log);
    for (const event of events) {
      if (!SUMMARY_EVENT_TYPES.has(event.type)) continue;
      const summary = updateSummary(this.#summaries.get(event.runId), event);
      if (summary) this.#summaries.set(event.runId, summary);
    }
    const summary = this.#summaries.get(first.runId);
    const last = events[events.length - 1];
    if (summary && last) this.#summaries.set(first.runId, { ...summary, events: last.seq, updatedAt: last.at });
  }

  read(runId: string, fromSeq = 1): RunEvent[] {
    return (this.#logs.get(runId) ?? []).slice(Math.max(0, fromSeq - 1));
  }

  lastSeq(runId: string): number {
    return this.#logs.get(runId)?.length ?? 0;
  }

  list(options: { limit?: number } = {}): RunSummary[] {
    const rows = [...this.#summaries.values()].sort(
      (a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId),
    );
    return options.limit === undefined ? rows : rows.slice(0, options.limit);
  }

  close(): void {}
}
