/**
 * A fetch whose response body obeys the request's abort signal. undici errors the body when the
 * signal aborts, but other fetch implementations the providers run on (msw in tests, a
 * cassette replaying a recording, a user's own fetch) may not: a stalled body would then hang
 * the call past its deadline. The body is re-streamed through a stream we can error ourselves.
 */
export function abortableFetch(base: typeof fetch | undefined): typeof fetch {
  // Resolved at call time, not here, so that an interceptor installed later (msw, a
  // cassette) still sees the request.
  const inner: typeof fetch = base ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const response = await inner(input, init);
    const signal = init?.signal;
    if (!signal || !response.body) return response;
    return new Response(abortableStream(response.body, signal), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function abortableStream(source: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let onAbort: (() => void) | undefined;
  const release = (): void => {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        // Erroring the controller rejects a read that is waiting right now.
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => undefined);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (signal.aborted) return;
      if (done) {
        release();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}
