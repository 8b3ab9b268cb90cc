import { SeqConflictError, StoreError } from "../errors/index.js";
import type { RunEvent, RunStore, RunSummary } from "../contracts/index.js";
import { summarize } from "../journal/index.js";

/** A RunStore in memory: for tests, `--mock` evals and anything that need not outlive the process. */
export class MemoryRunStore implements RunStore {
  readonly #logs = new Map<string, RunEvent[]>();

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
  }

  read(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): RunEvent[] {
    return (this.#logs.get(runId) ?? []).slice(Math.max(0, fromSeq - 1), Math.max(0, toSeq));
  }

  lastSeq(runId: string): number {
    return this.#logs.get(runId)?.length ?? 0;
  }

  /** Derived from the logs, as the SQLite store derives it: appends keep nothing beside them. */
  list(options: { limit?: number } = {}): RunSummary[] {
    const rows = [...this.#logs.values()]
      .flatMap((log) => {
        const summary = summarize(log);
        const last = log[log.length - 1];
        return summary && last ? [{ ...summary, events: last.seq, updatedAt: last.at }] : [];
      })
      .sort(
      (a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId),
    );
    return options.limit === undefined ? rows : rows.slice(0, options.limit);
  }

  close(): void {}
}
