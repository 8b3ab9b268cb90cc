/**
 * Whatever an official SDK (or the network under it) throws → what the provider throws. The
 * OpenAI and Anthropic SDKs share one error hierarchy design (APIError with status and headers,
 * connection and timeout subclasses, an abort class), so one mapping serves both; each adapter
 * supplies its SDK's classes and reads its own error bodies.
 */
import { ProviderError, RetraceError, type ProviderErrorKind } from "../../errors/index.js";
import type { CallDeadline } from "./deadline.js";
import { errorFromHttpStatus, providerError, rootCauseMessage, type ProviderCallContext } from "./errors.js";

type ErrorClass<T> = abstract new (...args: never[]) => T;

export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
}

export interface SdkErrors<E extends SdkApiError> {
  /** "the OpenAI SDK", for the rare error the SDK raises itself before any request. */
  name: string;
  base: ErrorClass<Error>;
  apiError: ErrorClass<E>;
  connectionError: ErrorClass<E>;
  connectionTimeoutError: ErrorClass<E>;
  userAbortError: ErrorClass<E>;
  /** The provider's own explanation of an HTTP error. */
  httpMessage(error: E): Promise<string | undefined>;
  /** An error event inside a stream that had started with 200: its kind and explanation. */
  streamError(error: E): { kind: ProviderErrorKind; message: string };
}

export interface FailedCall {
  context: ProviderCallContext;
  deadline: CallDeadline;
  timeoutMs: number;
}

/**
 * Returns what to throw. A caller's own cancellation is returned as the signal's reason, not
 * as a ProviderError: no kind fits it, and a retryable kind would invite the agent to try again
 * after being told to stop. An error nobody anticipated (a bug) is returned as it is, to stay
 * loud instead of passing for a network problem.
 */
export async function fromSdkError<E extends SdkApiError>(error: unknown, sdk: SdkErrors<E>, call: FailedCall): Promise<unknown> {
  const { context, deadline } = call;
  if (error instanceof ProviderError) return error;
  if (deadline.timedOut || error instanceof sdk.connectionTimeoutError) {
    return providerError(context, "timeout", `${context.label} gave no complete response within ${call.timeoutMs} ms`, { cause: error });
  }
  if (deadline.cancelled) return deadline.signal.reason;
  if (error instanceof sdk.userAbortError) {
    return providerError(context, "connection", `the request to ${context.label} was aborted`, { cause: error });
  }
  if (error instanceof sdk.connectionError) {
    // The fetch itself refused the request and said why (a cassette miss in replay): no
    // network trouble to retry, and the reason is the message the user needs.
    if (error.cause instanceof RetraceError && !(error.cause instanceof ProviderError) && error.cause.code.startsWith("cassette_")) return error.cause;
    return providerError(context, "connection", `could not reach ${context.label}: ${rootCauseMessage(error)}`, { cause: error });
  }
  if (error instanceof sdk.apiError) {
    if (error.status === undefined) {
      const { kind, message } = sdk.streamError(error);
      return providerError(context, kind, `${context.label} reported an error in the middle of the stream: ${message}`, { cause: error });
    }
    const providerMessage = await sdk.httpMessage(error);
    return errorFromHttpStatus(context, { status: error.status, providerMessage, headers: error.headers, cause: error });
  }
  if (error instanceof SyntaxError) {
    return providerError(context, "invalid_response", `${context.label} sent a body that is not valid JSON (truncated or garbled): ${error.message}`, { cause: error });
  }
  if (isBrokenConnection(error)) {
    return providerError(context, "connection", `the connection to ${context.label} broke: ${rootCauseMessage(error)}`, { cause: error });
  }
  if (error instanceof sdk.base) {
    return providerError(context, "bad_request", `${sdk.name} refused the request: ${error.message}`, { cause: error });
  }
  return error;
}

/** undici's "terminated" / "fetch failed" TypeErrors: the socket went away mid-response. */
function isBrokenConnection(error: unknown): boolean {
  return error instanceof TypeError && (error.message === "terminated" || error.message === "fetch failed");
}
