/**
 * The wire-level request key: what a recorded exchange is found by. A request is reduced to its
 * canonical form — method, URL (host lower-cased, credentials and fragment dropped, query
 * sorted), the few headers that change an answer, and the body (JSON with sorted keys) — then the
 * user's normalisers run, then redaction; the key is sha256 over that form's canonical JSON, so
 * the stored request alone determines its key. Credentials, `x-stainless-*`, user-agent, request
 * ids and idempotency keys never enter it: they vary between machines and retries, not answers.
 *
 * This key is separate from the run-level request key (src/keys/), which hashes an LlmRequest.
 */
import { canonicalJson, sha256 } from "../canonical/index.js";
import { base64, bodyBytes, isJsonType, utf8 } from "./body.js";
import type { CanonicalRequest, StoredBody } from "./format.js";

/** Headers that can change an answer; everything else a client sends is left out. */
export const KEPT_REQUEST_HEADERS: readonly string[] = ["content-type", "anthropic-version", "anthropic-beta", "openai-beta"];

/** Never kept, whatever a configuration asks. */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|cookie|x-api-key|api-key|x-goog-api-key|ocp-apim-subscription-key)$/i;

/** Query parameters that carry credentials (`?key=`, `?api_key=`, `?sig=`): dropped from the URL. */
export const CREDENTIAL_PARAMETER = /key|token|secret|password|signature|^sig$|auth/i;

/** Rewrites a canonical request before it is keyed and stored (docs/cassettes.md, "Normalisers"). */
export type RequestNormaliser = (request: CanonicalRequest) => CanonicalRequest;

export interface KeyingOptions {
  /** Request headers kept besides KEPT_REQUEST_HEADERS (lower-case names). */
  keepHeaders?: readonly string[];
  normalise?: readonly RequestNormaliser[];
  /** Applied last, to every string of the canonical request (redaction). */
  scrub?: (value: CanonicalRequest) => CanonicalRequest;
}

/** The URL as stored and keyed: no user or password, no credential parameters, no fragment, the query sorted. */
export function canonicalUrl(raw: string): string {
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  url.hash = "";
  const params = [...url.searchParams].filter(([name]) => !CREDENTIAL_PARAMETER.test(name));
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  return url.href;
}

/** The request's body as stored: JSON canonicalised (sorted keys), anything else exactly. */
export function canonicalBody(bytes: Uint8Array | undefined, contentType: string | undefined): StoredBody | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  const text = utf8(bytes);
  if (text === undefined) return { base64: base64(bytes) };
  if (contentType === undefined || isJsonType(contentType)) {
    try {
      return { json: JSON.parse(canonicalJson(JSON.parse(text))) as unknown };
    } catch {
      // Not JSON after all: kept as the text it is.
    }
  }
  return { text };
}

export function canonicalRequest(
  method: string,
  url: string,
  headers: Headers,
  body: Uint8Array | undefined,
  options: KeyingOptions = {},
): CanonicalRequest {
  const kept: Record<string, string> = {};
  const names = options.keepHeaders ? [...KEPT_REQUEST_HEADERS, ...options.keepHeaders.map((name) => name.toLowerCase())] : KEPT_REQUEST_HEADERS;
  for (const name of [...new Set(names)].sort()) {
    if (CREDENTIAL_HEADER.test(name)) continue;
    const value = headers.get(name);
    if (value !== null) kept[name] = value;
  }
  const contentType = headers.get("content-type") ?? undefined;
  const storedBody = canonicalBody(body, contentType);
  let request: CanonicalRequest = { method: method.toUpperCase(), url: canonicalUrl(url), headers: kept, ...(storedBody ? { body: storedBody } : {}) };
  for (const normalise of options.normalise ?? []) request = normalise(request);
  return options.scrub ? options.scrub(request) : request;
}

/** sha256 over the canonical request's canonical JSON. */
export function requestKey(request: CanonicalRequest): string {
  return sha256(canonicalJson(request));
}

/** Method, host and path: requests to one endpoint are the candidates when explaining a miss. */
export function endpointOf(request: CanonicalRequest): string {
  const url = new URL(request.url);
  return `${request.method} ${url.host}${url.pathname}`;
}

// --- Built-in normalisers ------------------------------------------------------------------

/**
 * Leaves a JSON body field out of the key and the stored request: a dotted path, `*` for any
 * key or array index (`metadata.user_id`, `messages.*.cache_control`).
 */
export function ignoreBodyField(path: string): RequestNormaliser {
  const steps = path.split(".");
  return (request) => {
    if (!request.body || !("json" in request.body)) return request;
    return { ...request, body: { json: without(request.body.json, steps) } };
  };
}

function without(value: unknown, steps: readonly string[]): unknown {
  if (steps.length === 0 || value === null || typeof value !== "object") return value;
  const [step, ...rest] = steps as [string, ...string[]];
  if (Array.isArray(value)) {
    return value.map((item, index) => (step === "*" || step === String(index) ? (rest.length ? without(item, rest) : undefined) : item)).filter((item) => item !== undefined);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (step !== "*" && step !== key) out[key] = item;
    else if (rest.length) out[key] = without(item, rest);
  }
  return out;
}

/** Leaves a query parameter out of the key and the stored URL. */
export function ignoreQueryParam(name: string): RequestNormaliser {
  return (request) => {
    const url = new URL(request.url);
    url.searchParams.delete(name);
    return { ...request, url: url.href };
  };
}

/** Replaces matches of `pattern` in every string of the JSON body (a session id, a date). */
export function replaceInBody(pattern: RegExp | string, replacement: string): RequestNormaliser {
  const regex = typeof pattern === "string" ? new RegExp(escapeRegExp(pattern), "g") : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  const visit = (value: unknown): unknown => {
    if (typeof value === "string") return value.replace(regex, replacement);
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item)]));
    return value;
  };
  return (request) => {
    if (!request.body) return request;
    if ("json" in request.body) return { ...request, body: { json: visit(request.body.json) } };
    if ("text" in request.body) return { ...request, body: { text: visit(request.body.text) as string } };
    return request;
  };
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The bytes of a stored request body (for forwarding a recorded request, and for tests). */
export function requestBodyBytes(request: CanonicalRequest): Uint8Array | undefined {
  return request.body ? bodyBytes(request.body) : undefined;
}
