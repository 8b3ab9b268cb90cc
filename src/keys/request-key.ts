import { digest, frozenDigest } from "../canonical/index.js";
import type { LlmRequest, ModelIdentity } from "../contracts/index.js";
import { isSecretKey } from "../redaction/index.js";

/**
 * What determines a model's answer, and nothing else: the request as the model sends it (its
 * own sampling defaults filled in where the request sets none), the provider, the endpoint and
 * the headers that change the answer (`answerHeaders`); never credentials or SDK transport
 * headers. Replay finds recorded responses by this key (plus an ordinal for repeated requests).
 */
export function requestKey(model: ModelIdentity, request: LlmRequest): string {
  const { tools, ...rest } = request;
  const sent = {
    ...rest,
    model: request.model || model.model,
    temperature: request.temperature ?? model.temperature,
    maxTokens: request.maxTokens ?? model.maxTokens,
    seed: request.seed ?? model.seed,
    // The tool list is the bulk of a request and the same on every step: it enters by its digest.
    tools: frozenDigest(tools),
  };
  const headers = model.headers && Object.keys(model.headers).length > 0 ? lowerCased(model.headers) : undefined;
  // Absent headers add nothing, so the keys of models that send none are what they always were.
  return digest({ provider: model.provider, endpoint: endpointOf(model.baseUrl), request: sent, ...(headers ? { headers } : {}) });
}

/**
 * The configured headers that can change an answer, for a model's identity: names in lower case
 * (HTTP names are case-insensitive), without credentials (`Authorization`, `x-api-key`, any
 * secret-named header, cookies) and without headers that were unset (null).
 */
export function answerHeaders(headers: Readonly<Record<string, string | null | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (typeof value !== "string" || isSecretKey(name) || CREDENTIAL_HEADER.test(lower)) continue;
    out[lower] = value;
  }
  return out;
}

const CREDENTIAL_HEADER = /^(?:cookie|set-cookie|proxy-authorization|x-.*-(?:key|signature))$/;

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The base URL as an address. Credentials some users put in a URL (user and password, a
 * `?key=` or `?token=` parameter) are dropped, so that a new key does not make every recorded
 * request look new; the rest of the query stays, since a gateway may answer by it
 * (`api-version=`). Spellings of one address (host case, a trailing slash) agree.
 */
export function endpointOf(baseUrl: string | undefined): string | null {
  if (baseUrl === undefined) return null;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl.replace(/\/+$/, "");
  }
  // Stryker disable next-line StringLiteral: equivalent, the endpoint below is built from protocol, host, path and query, none of which holds it; clearing it only states the intent
  url.username = "";
  // Stryker disable next-line StringLiteral: equivalent, the endpoint below is built from protocol, host, path and query, none of which holds it; clearing it only states the intent
  url.password = "";
  // Stryker disable next-line StringLiteral: equivalent, the endpoint below is built from protocol, host, path and query, none of which holds it; clearing it only states the intent
  url.hash = "";
  for (const name of [...url.searchParams.keys()]) if (CREDENTIAL_PARAMETER.test(name)) url.searchParams.delete(name);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}${url.search}`;
}

const CREDENTIAL_PARAMETER = /key|token|secret|password|signature|^sig$|auth/i;
