/**
 * A whole-call deadline. The SDKs' own `timeout` stops at the response headers: a server that
 * sends headers and then stalls the body (or an SSE stream that stops mid-way) would hang the
 * agent forever. This signal covers the body too, and remembers whether it fired so that the
 * error it causes (an AbortError, an SDK abort, or a stream that silently ends, which is how
 * both SDKs treat an abort during iteration) is reported as a timeout.
 */
export interface CallDeadline {
  readonly signal: AbortSignal;
  readonly timedOut: boolean;
  /** The caller cancelled through its own signal (not a timeout). */
  readonly cancelled: boolean;
  /**
   * Settles with `work`, or rejects as soon as the signal aborts: a backstop for a fetch that
   * ignores its signal altogether (a hand-written one, a cassette), which would otherwise
   * leave the SDK waiting for headers forever.
   */
  race<T>(work: Promise<T>): Promise<T>;
  dispose(): void;
}

/** What both HTTP providers allow a whole call when their options set no timeout: 10 minutes. */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;

export function startDeadline(timeoutMs: number, outer?: AbortSignal): CallDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no complete response within ${timeoutMs} ms`));
  }, timeoutMs);
  const forward = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    get cancelled() {
      return !timedOut && outer?.aborted === true;
    },
    race<T>(work: Promise<T>): Promise<T> {
      const { signal } = controller;
      return new Promise<T>((resolve, reject) => {
        const onAbort = (): void => reject(signal.reason);
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
        // Both branches are handled, so a late rejection of `work` is never unhandled.
        work.then(
          (value) => {
            signal.removeEventListener("abort", onAbort);
            resolve(value);
          },
          (error: unknown) => {
            signal.removeEventListener("abort", onAbort);
            reject(error);
          },
        );
      });
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", forward);
    },
  };
}
