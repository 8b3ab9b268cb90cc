/**
 * One way to turn a provider's HTTP failure into a ProviderError, shared by the OpenAI and
 * Anthropic adapters so that the same status always means the same kind and wording.
 */
import { ProviderError, type ProviderErrorKind } from "../../errors/index.js";
import { parseRetryAfterMs } from "./retry-after.js";
import { safeCause } from "./safe-cause.js";
import { scrubSecrets } from "../../redaction/index.js";

/** Who failed: enough to write an actionable message and to scrub it. */
export interface ProviderCallContext {
  /** `provider` as the LanguageModel reports it ("openai", "anthropic", ...). */
  provider: string;
  /** How a person names it in a sentence ("OpenAI", "the OpenAI-compatible server at ..."). */
  label: string;
  model: string;
  /** Credentials that must never appear in a message. */
  secrets: readonly string[];
  /** The run's clock; an HTTP-date retry-after becomes a delay from it, not from the wall clock. */
  now?: () => number;
}

export function providerError(
  context: ProviderCallContext,
  kind: ProviderErrorKind,
  message: string,
  details: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
): ProviderError {
  return new ProviderError(kind, scrubSecrets(message, context.secrets), {
    provider: context.provider,
    status: details.status,
    retryAfterMs: details.retryAfterMs,
    cause: details.cause === undefined ? undefined : safeCause(details.cause, context.secrets),
  });
}

/** An HTTP error status, the provider's own explanation and the response headers. */
export interface HttpFailure {
  status: number;
  providerMessage: string | undefined;
  headers: Headers | undefined;
  cause: unknown;
}

export function errorFromHttpStatus(context: ProviderCallContext, failure: HttpFailure): ProviderError {
  const { status } = failure;
  const said = failure.providerMessage ? `: ${failure.providerMessage}` : "";
  const retryAfterMs = parseRetryAfterMs(failure.headers, context.now);
  const details = { status, retryAfterMs, cause: failure.cause };
  const { label, model } = context;
  if (status === 401) {
    return providerError(context, "auth", `${label} rejected the API key (HTTP 401)${said}. Check the key configured for this provider.`, details);
  }
  if (status === 403) {
    return providerError(context, "auth", `${label} refused access (HTTP 403)${said}. The key may not be allowed to use model "${model}".`, details);
  }
  if (status === 404) {
    return providerError(
      context,
      "not_found",
      `${label} answered HTTP 404 for model "${model}"${said}. The model may not exist or this key may not have access to it; check the model name and the base URL.`,
      details,
    );
  }
  if (status === 429) {
    const wait = retryAfterMs === undefined ? "" : ` (it asks to wait ${retryAfterMs} ms)`;
    return providerError(context, "rate_limited", `${label} rate limit reached (HTTP 429)${said}${wait}`, details);
  }
  if (status === 408) {
    return providerError(context, "timeout", `${label} timed out the request (HTTP 408)${said}`, details);
  }
  // 409 is what both APIs send for a transient lock conflict, and their SDKs retry it: it is
  // the server's trouble, not a malformed request.
  if (status >= 500 || status === 409) {
    return providerError(context, "server", `${label} server error (HTTP ${status})${said}`, details);
  }
  return providerError(context, "bad_request", `${label} rejected the request (HTTP ${status})${said}`, details);
}

/**
 * The human explanation inside an error body, whatever its dialect: OpenAI and Anthropic nest
 * it as `error.message`; vLLM and LiteLLM put `message` at the top; Ollama sends `error` as a
 * string; FastAPI servers send `detail`. A non-JSON body (a proxy's HTML page) is shortened.
 */
export function providerMessageOf(body: unknown): string | undefined {
  if (typeof body === "string") return shorten(body);
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const nested = record["error"];
  if (typeof nested === "string") return shorten(nested);
  if (typeof nested === "object" && nested !== null) {
    const message = (nested as Record<string, unknown>)["message"];
    if (typeof message === "string") return shorten(message);
  }
  if (typeof record["message"] === "string") return shorten(record["message"]);
  const detail = record["detail"];
  if (typeof detail === "string") return shorten(detail);
  if (detail !== undefined) return shorten(JSON.stringify(detail));
  return undefined;
}

export function providerMessageOfText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return providerMessageOf(JSON.parse(text) as unknown);
  } catch {
    return providerMessageOf(text);
  }
}

function shorten(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return undefined;
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat;
}

/** The innermost cause's message: undici reports "fetch failed" and hides ECONNREFUSED below. */
export function rootCauseMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}
