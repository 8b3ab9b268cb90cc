import { createHash, type Hash } from "node:crypto";
import { canonicalJson, digest, frozenDigest, grownFrom, isImmutable, noteWritten } from "../canonical/index.js";
import type { LlmRequest, ModelIdentity } from "../contracts/index.js";
import { isSecretKey } from "../redaction/index.js";

/**
 * What determines a model's answer, and nothing else: the request as the model sends it (its
 * own sampling defaults filled in where the request sets none), the provider, the endpoint and
 * the headers that change the answer (`answerHeaders`); never credentials or SDK transport
 * headers. Replay finds recorded responses by this key (plus an ordinal for repeated requests).
 */
export function requestKey(model: ModelIdentity, request: LlmRequest): string {
  // Copied key by key, not spread: on Node 20 (V8 11) a spread of the request's rest gives every
  // key object a hidden class of its own (one per model call).
  const sent = ownCopy(request);
  sent.model = request.model || model.model;
  sent.temperature = request.temperature ?? model.temperature;
  sent.maxTokens = request.maxTokens ?? model.maxTokens;
  sent.seed = request.seed ?? model.seed;
  // The tool list is the bulk of a request and the same on every step: it enters by its digest.
  sent.tools = frozenDigest(request.tools);
  const headers = model.headers && Object.keys(model.headers).length > 0 ? lowerCased(model.headers) : undefined;
  // Absent headers add nothing, so the keys of models that send none are what they always were.
  const keyed = { provider: model.provider, endpoint: endpointOf(model.baseUrl), request: sent, ...(headers ? { headers } : {}) };
  const long = request.messages.length >= INCREMENTAL_FROM;
  return long && isImmutable(request.messages) && conversationFirst(sent) ? conversationDigest(keyed, request.messages) : digest(keyed);
}

/** The own enumerable properties of `value`, as a spread copies them (a "__proto__" key stays a key). */
function ownCopy(value: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, nothing writes a "__proto__" key of the copy (only the stamped fields are assigned)
        writable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, nothing redefines or deletes a key of the copy
        configurable: true,
      });
    } else copy[key] = item;
  }
  return copy;
}

/**
 * From how many messages a key is hashed incrementally. Below it, keeping a hash per list costs
 * more than hashing the few messages again (most eval cases end in one step with two messages);
 * the digest is the same either way, and a longer conversation starts its incremental hash here.
 */
const INCREMENTAL_FROM = 8;

/** Whether nothing but a number (maxTokens) comes before the messages in the request's canonical text. */
function conversationFirst(sent: Record<string, unknown>): boolean {
  for (const key of Object.keys(sent)) {
    if (key >= "messages") continue;
    if (key !== "maxTokens" || (sent[key] !== undefined && typeof sent[key] !== "number")) return false;
  }
  return true;
}

/**
 * The digest of a key whose conversation is an immutable list: the same digest as `digest`,
 * but the hash of everything up to the conversation's last message is kept with the list, so
 * the next step (a list grown from this one) hashes only its new messages, not the whole
 * conversation again.
 *
 * The key's canonical text is `before` + the messages + `after`, where `before` and `after`
 * are the text of the key with no messages cut at its `"messages":[]`: keys are sorted, and
 * only the endpoint, headers and provider (strings, whose quotes are escaped) and the request's
 * maxTokens (a number) come before it, so the first such key is the request's.
 */
function conversationDigest(keyed: { request: Record<string, unknown> }, messages: readonly unknown[]): string {
  const skeleton = canonicalJson({ ...keyed, request: { ...keyed.request, messages: [] } });
  const at = skeleton.indexOf(EMPTY_CONVERSATION);
  // Defensive: every key holds its request's messages (never at 0, the text starts with "{").
  if (at < 0) return digest(keyed);
  const before = skeleton.slice(0, at + EMPTY_CONVERSATION.length - 1);
  const hash = conversationHash(before, messages);
  return hash.copy().update(skeleton.slice(at + EMPTY_CONVERSATION.length - 1)).digest("hex");
}

const EMPTY_CONVERSATION = '"messages":[]';

/** Per conversation list, the hash of each `before` text followed by the list's messages (without the closing bracket). */
const conversationHashes = new WeakMap<readonly unknown[], Map<string, Hash>>();

/**
 * How many messages the incremental path has serialised into a hash, in this process. The
 * digest is the same on either path, so this is how a test sees what a step cost: only the
 * messages it added, nothing for a key asked again, nothing for a short or ordinary request.
 * Internal (not exported by the package).
 */
export const incrementalWork = { messages: 0 };

function conversationHash(before: string, messages: readonly unknown[]): Hash {
  let byBefore = conversationHashes.get(messages);
  const known = byBefore?.get(before);
  if (known) return known;
  const earlier = grownFrom(messages);
  const start = earlier ? conversationHashes.get(earlier)?.get(before) : undefined;
  const hash = start ? start.copy() : createHash("sha256").update(before);
  for (let index = start ? (earlier as readonly unknown[]).length : 0; index < messages.length; index++) {
    hash.update(`${index > 0 ? "," : ""}${canonicalJson(messages[index])}`);
    incrementalWork.messages++;
  }
  if (!byBefore) {
    byBefore = new Map();
    conversationHashes.set(messages, byBefore);
  }
  byBefore.set(before, hash);
  noteWritten(messages);
  return hash;
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
