import { digest, frozenDigest } from "../canonical/index.js";
import type { LlmRequest, ModelIdentity } from "../contracts/index.js";

/**
 * What determines a model's answer, and nothing else: the request as the model sends it (its
 * own sampling defaults filled in where the request sets none), the provider and the endpoint;
 * never credentials or SDK headers. Replay finds recorded responses by this key (plus an
 * ordinal for repeated requests).
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
  return digest({ provider: model.provider, endpoint: endpointOf(model.baseUrl), request: sent });
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
