import { SeqConflictError, StoreError } from "../errors/index.js";
import type { RunEvent, RunStore, RunSummary } from "../contracts/index.js";
import { checkEvents, checkStoredBodies, parseEvent, summarize } from "../journal/index.js";
import { compareBytes } from "./order.js";

/**
 * A RunStore in memory: for tests, `--mock` evals and anything that need not outlive the process.
 * It keeps bytes, not objects, and validates an append exactly as the SQLite store does, so a
 * log `--mock` accepts is a log the real store accepts, and no reader shares an object with the writer.
 */
export class MemoryRunStore implements RunStore {
  readonly #logs = new Map<string, string[]>();

  append(events: readonly RunEvent[]): void {
    const checked = checkEvents(events);
    this.#write(checked.events, checked.bodies);
  }

  appendRaw(bodies: readonly string[]): RunEvent[] {
    return this.#write(checkStoredBodies(bodies), bodies);
  }

  /** Keeps checked events, each as its body. */
  #write(checked: RunEvent[], bodies: readonly string[]): RunEvent[] {
    const first = checked[0];
    if (!first) return [];
    const log = this.#logs.get(first.runId) ?? [];
    let expected = log.length + 1;
    for (const event of checked) {
      if (event.runId !== first.runId) throw new StoreError("store_corrupt", "one append must hold events of one run", { runId: first.runId });
      if (event.seq !== expected) throw new SeqConflictError(first.runId, event.seq, expected - 1);
      expected++;
    }
    log.push(...bodies);
    this.#logs.set(first.runId, log);
    return checked;
  }

  read(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): RunEvent[] {
    return this.readRaw(runId, fromSeq, toSeq).map((body, index) => parseEvent(body, { runId, seq: Math.max(1, fromSeq) + index }));
  }

  readRaw(runId: string, fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): string[] {
    return (this.#logs.get(runId) ?? []).slice(Math.max(0, fromSeq - 1), Math.max(0, toSeq));
  }

  lastSeq(runId: string): number {
    return this.#logs.get(runId)?.length ?? 0;
  }

  /** Derived from the logs, as the SQLite store derives it, and in its (bytewise) order. */
  list(options: { limit?: number } = {}): RunSummary[] {
    const rows = [...this.#logs.keys()]
      .flatMap((runId) => {
        const log = this.read(runId);
        const summary = summarize(log);
        const last = log[log.length - 1];
        return summary && last ? [{ ...summary, events: last.seq, updatedAt: last.at }] : [];
      })
      .sort((a, b) => compareBytes(b.startedAt, a.startedAt) || compareBytes(b.runId, a.runId));
    return options.limit === undefined || options.limit < 0 ? rows : rows.slice(0, options.limit);
  }

  close(): void {}
}
