/**
 * A turn's cancellation: whether it was aborted, and its AbortSignal for what takes one (a
 * provider's request, a tool). Node's AbortController is slow to make (an EventTarget: one per
 * case was ~3% of a 1,000-case `eval-test --mock`, paired), and the turns of a scripted model
 * never hand a signal to anything: a `LazyAbort` makes its controller only when its signal is
 * asked for.
 */
import type { GenerateOptions } from "../contracts/index.js";

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

  /** Whether its signal was made (asked for). */
  get made(): boolean {
    return this.#controller !== undefined;
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

/**
 * Puts the turn's signal on a model call's options: as it is when it exists, else as a getter
 * that makes it when the model reads it. Either way the model may set its own in its place.
 */
export function offerSignal(options: GenerateOptions, cancel: Cancellation): void {
  if (!(cancel instanceof LazyAbort) || cancel.made) {
    options.signal = cancel.signal;
    return;
  }
  Object.defineProperty(options, "signal", {
    get: () => cancel.signal,
    set(this: GenerateOptions, value: AbortSignal | undefined) {
      Object.defineProperty(this, "signal", { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
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
