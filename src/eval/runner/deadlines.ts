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
  readonly #timeout: Promise<typeof TIMEOUT>;
  readonly cancel: () => void;

  constructor(deadlines: Deadlines, ms: number, controller: AbortController) {
    let expire!: () => void;
    this.#timeout = new Promise((resolve) => (expire = () => resolve(TIMEOUT)));
    this.cancel = deadlines.add(ms, () => {
      this.expired = true;
      controller.abort();
      expire();
    });
  }

  race<T>(promise: Promise<T>): Promise<T | typeof TIMEOUT> {
    return Promise.race([promise, this.#timeout]);
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
