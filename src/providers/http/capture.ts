/**
 * A fetch wrapper that keeps the body of an error response. The OpenAI SDK only keeps the
 * `error` member of a JSON error body, so a compatible server that answers
 * `{"message": "..."}` (vLLM, LiteLLM) or `{"detail": ...}` would lose its explanation; with
 * the raw text we can still show the user what the server said.
 */
export interface ErrorBodyCapture {
  fetch: typeof fetch;
  /** The text of the last non-2xx response body, once the SDK has read it. */
  errorBody(): Promise<string | undefined>;
}

export function captureErrorBodies(base: typeof fetch): ErrorBodyCapture {
  let pending: Promise<string | undefined> = Promise.resolve(undefined);
  const wrapped: typeof fetch = async (input, init) => {
    const response = await base(input, init);
    if (!response.ok) {
      pending = response
        .clone()
        .text()
        .catch(() => undefined);
    }
    return response;
  };
  return { fetch: wrapped, errorBody: () => pending };
}
