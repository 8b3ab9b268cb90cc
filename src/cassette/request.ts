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
  /**
   * Redaction, as a pass over the canonical JSON text (which, when it changes nothing, is all
   * the work) and the same per string of the request (when it does).
   */
  scrub?: { text: (text: string) => string; value: <T>(value: T) => T };
}

const URL_CACHE_LIMIT = 256;
const urlCache = new Map<string, string>();

/** The URL as stored and keyed: no user or password, no credential parameters, no fragment, the query sorted. */
export function canonicalUrl(raw: string): string {
  const cached = urlCache.get(raw);
  if (cached !== undefined) return cached;
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  url.hash = "";
  const params = [...url.searchParams].filter(([name]) => !CREDENTIAL_PARAMETER.test(name));
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  url.search = new URLSearchParams(params).toString();
  // A handful of endpoints serve a whole run: remember them, boundedly.
  if (urlCache.size >= URL_CACHE_LIMIT) urlCache.clear();
  urlCache.set(raw, url.href);
  return url.href;
}

/** The request's body: JSON as its value (keyed by its canonical JSON, so key order never matters), anything else exactly. */
export function canonicalBody(body: Uint8Array | string | undefined, contentType: string | undefined): StoredBody | undefined {
  if (body === undefined || body.length === 0) return undefined;
  const text = typeof body === "string" ? body : utf8(body);
  if (text === undefined) return { base64: base64(body as Uint8Array) };
  if (contentType === undefined || isJsonType(contentType)) {
    try {
      const value = JSON.parse(text) as unknown;
      // A value canonical JSON cannot carry as it is (1e400 is Infinity) is kept as text.
      canonicalJson(value);
      return { json: value };
    } catch {
      // Not JSON after all: kept as the text it is.
    }
  }
  return { text };
}

/** The request headers that enter the key, by name in sorted order; never a credential. */
export function keptHeaders(headers: Headers, extra: readonly string[] | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  const names = extra ? [...new Set([...KEPT_REQUEST_HEADERS, ...extra.map((name) => name.toLowerCase())])].sort() : KEPT_REQUEST_HEADERS;
  for (const name of names) {
    if (CREDENTIAL_HEADER.test(name)) continue;
    const value = headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

/**
 * What a request looks like before any parsing: method, canonical URL, kept headers and the
 * body's exact text. Two requests with one fingerprint have one canonical form, so a cassette
 * finds a recorded request by it without parsing, sorting or hashing (see Cassette).
 */
export function fingerprint(method: string, url: string, headers: Record<string, string>, body: string): string {
  let text = `${method.toUpperCase()}\u0000${url}`;
  for (const name in headers) text += `\u0000${name}:${headers[name]}`;
  return `${text}\u0000\u0000${body}`;
}

/** A stored request's fingerprint: its body as its client wrote it (JSON.stringify of the value as stored). */
export function storedFingerprint(request: CanonicalRequest): string | undefined {
  const body = request.body;
  if (body && "base64" in body) return undefined;
  const text = body === undefined ? "" : "json" in body ? JSON.stringify(body.json) : body.text;
  return fingerprint(request.method, request.url, request.headers, text);
}

/**
 * A request's canonical form, its canonical JSON text and its key (sha256 of the text).  The form is
 * stored as it is — a JSON body keeps the key order its client wrote, which keeps the file
 * readable and the fingerprint exact — and `requestKey(form) === key` holds (loading checks it).
 */
export function keyedRequest(
  method: string,
  url: string,
  headers: Headers,
  body: Uint8Array | string | undefined,
  options: KeyingOptions = {},
): { request: CanonicalRequest; key: string; text: string } {
  const kept = keptHeaders(headers, options.keepHeaders);
  const storedBody = canonicalBody(body, headers.get("content-type") ?? undefined);
  let request: CanonicalRequest = { method: method.toUpperCase(), url: canonicalUrl(url), headers: kept, ...(storedBody ? { body: storedBody } : {}) };
  for (const normalise of options.normalise ?? []) request = normalise(request);
  let text = canonicalJson(request);
  if (options.scrub && options.scrub.text(text) !== text) {
    request = options.scrub.value(request);
    text = canonicalJson(request);
  }
  return { request, key: sha256(text), text };
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
