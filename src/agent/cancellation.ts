/**
 * A turn's cancellation: whether it was aborted, and its AbortSignal for what takes one (a
 * provider's request, a tool). Node's AbortController is slow to make (an EventTarget, ~4% of
 * a 1,000-case `eval-test --mock`, paired), and most turns of a scripted model never hand a
 * signal to anything: a `LazyAbort` makes its controller only when its signal is asked for.
 */
export interface Cancellation {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

/** A cancellation whose signal is made when first asked for; `abort()` before that is kept and shown by it. */
export class LazyAbort implements Cancellation {
  #controller: AbortController | undefined;
  #aborted = false;

  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  abort(): void {
    this.#aborted = true;
    this.#controller?.abort();
  }
}

/** A given signal as a cancellation. */
export function signalCancellation(signal: AbortSignal): Cancellation {
  return {
    get aborted() {
      return signal.aborted;
    },
    signal,
  };
}
