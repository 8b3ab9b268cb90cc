/**
 * Cassettes: HTTP exchanges with model providers, recorded once and served back byte for byte
 * (docs/cassettes.md). The public face for the CLI, evals, bundles and benchmarks:
 *
 *   const cassette = Cassette.open(file, { mode: "replay" });  // validates; CassetteError if bad
 *   const model = await createModel({ ...settings, fetch: cassetteFetch(cassette) });
 *   …
 *   const { unused } = cassette.close();
 *
 * or, for code that calls an SDK itself: `await withCassette(file, { mode }, async () => …)`.
 */
export { Cassette, CASSETTE_MODES, KEPT_RESPONSE_HEADERS, type CassetteMode, type CassetteOptions, type CassetteSummary, type CassetteTiming, type IncomingRequest, type UnusedEntry, type Forward } from "./cassette.js";
export { cassetteFetch } from "./fetch.js";
export { withCassette, interceptWith, type WithCassetteOptions } from "./intercept.js";
export { readCassette, parseCassette, serializeCassette, writeCassette, refuseSecrets, type Secrets } from "./file.js";
export {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  CassetteSchema,
  EntrySchema,
  type CassetteDocument,
  type CassetteEntry,
  type CanonicalRequest,
  type StoredBody,
  type StoredChunk,
  type StoredResponse,
  type StoredResponseBody,
} from "./format.js";
export {
  canonicalRequest,
  canonicalUrl,
  requestKey as wireRequestKey,
  endpointOf as wireEndpoint,
  ignoreBodyField,
  ignoreQueryParam,
  replaceInBody,
  KEPT_REQUEST_HEADERS,
  type RequestNormaliser,
  type KeyingOptions,
} from "./request.js";
export { requestDifferences, wordDiff } from "./diff.js";
export { responseBytes } from "./body.js";
export { CassetteError, CassetteMissError } from "../errors/index.js";
