/**
 * A case's deadline, and the one timer every case's deadline shares. One deadline covers the
 * whole case (its turns, its body and the scoring of its assertions); racing against it is how
 * the attempt stops waiting, and expiring it aborts the case's run.
 */
export const TIMEOUT = Symbol("timeout");
export const UNSETTLED = Symbol("unsettled");

/** `promise`'s value if it settles in this turn of the event loop, else UNSETTLED. */
export function settledNow<T>(promise: Promise<T>): Promise<T | typeof UNSETTLED> {
  return Promise.race([promise, new Promise<typeof UNSETTLED>((resolve) => setImmediate(() => resolve(UNSETTLED)))]);
}

/** A case's deadline: aborts the case's run when it passes, and races anything against it. */
export class Deadline {
  expired = false;
  /** The races still waiting: a deadline that passes ends them with TIMEOUT. */
  readonly #waiting = new Set<(value: typeof TIMEOUT) => void>();
  readonly #cancel: () => void;

  constructor(deadlines: Deadlines, ms: number, cancellation: { abort(): void }) {
    this.#cancel = deadlines.add(ms, () => {
      this.expired = true;
      cancellation.abort();
      // After what the abort settled (a promise an abort listener ends wins its race, as it
      // did against a timeout promise resolved here): the races end a microtask later.
      const ending = [...this.#waiting];
      this.#waiting.clear();
      queueMicrotask(() => {
        for (const end of ending) end(TIMEOUT);
      });
    });
  }

  /** The deadline is no longer needed (the case is over): its timer entry goes, and so do its waiting races. */
  cancel(): void {
    this.#cancel();
    this.#waiting.clear();
  }

  /**
   * `promise`'s outcome, or TIMEOUT if the deadline passes first (at once, after a promise that
   * has already settled, when it has passed). A race is one promise and one reaction, not a
   * Promise.race over a timeout promise: a --mock case races twice, and its promises count.
   */
  race<T>(promise: Promise<T>): Promise<T | typeof TIMEOUT> {
    return new Promise<T | typeof TIMEOUT>((resolve, reject) => {
      const end = (value: T | typeof TIMEOUT): void => {
        this.#waiting.delete(end);
        resolve(value);
      };
      promise.then(end, (error: unknown) => {
        this.#waiting.delete(end);
        reject(error);
      });
      if (this.expired) queueMicrotask(() => end(TIMEOUT));
      else this.#waiting.add(end);
    });
  }
}

/**
 * Case timeouts on one timer, set for the earliest deadline: a thousand cases with the same
 * timeout cost one timer, not a thousand timer insertions and removals. The timer keeps the
 * process alive while any case has a deadline, so a case that hangs on a promise that never
 * settles times out instead of letting the process exit with nothing left to run.
 */
export class Deadlines {
  readonly #entries = new Set<{ at: number; fire: () => void }>();
  #timer: NodeJS.Timeout | undefined;
  #scheduledAt = Infinity;

  add(ms: number, fire: () => void): () => void {
    const entry = { at: performance.now() + ms, fire };
    this.#entries.add(entry);
    if (entry.at < this.#scheduledAt) this.#schedule(entry.at);
    return () => {
      this.#entries.delete(entry);
      if (this.#entries.size === 0) this.#clear();
    };
  }

  #schedule(at: number): void {
    this.#clear();
    this.#scheduledAt = at;
    // setTimeout takes at most 2^31 - 1 ms; a later deadline is re-armed when that fires.
    this.#timer = setTimeout(() => this.#expire(), Math.min(MAX_TIMER_MS, Math.max(0, at - performance.now())));
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#scheduledAt = Infinity;
  }

  #expire(): void {
    this.#timer = undefined;
    this.#scheduledAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of this.#entries) {
      if (entry.at <= now) {
        this.#entries.delete(entry);
        entry.fire();
      } else next = Math.min(next, entry.at);
    }
    if (next < Infinity) this.#schedule(next);
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;
