/**
 * A cassette in use: recorded exchanges served back by request key and ordinal, new ones
 * recorded, in one of five modes (docs/cassettes.md):
 *
 * - `live`    no cassette: every request goes to the network, nothing is read or written;
 * - `record`  every request goes to the network and is recorded (replacing the entry of the same
 *             key and ordinal; other entries stay);
 * - `auto`    recorded requests are served, the others go to the network and are recorded;
 * - `replay`  strict: recorded requests are served, any other is a CassetteMissError; nothing
 *             ever reaches the network;
 * - `update`  like `record`, and entries no longer used are dropped when the cassette closes.
 *
 * The same class serves the injected `fetch` of Retrace's providers and the interceptor of
 * `withCassette`: both hand it a request and a way to forward it.
 */
import { CassetteError, CassetteMissError } from "../errors/index.js";
import type { CassetteMode } from "./modes.js";
import { createRedactor } from "../redaction/index.js";
import { bodyBytes, chunkBytes, isStreamType, storeBody, storeChunk } from "./body.js";
import { requestDifferences, distance } from "./diff.js";
import { readCassette, writeCassette, type Secrets } from "./file.js";
import type { CanonicalRequest, CassetteDocument, CassetteEntry, StoredChunk, StoredResponse } from "./format.js";
import { canonicalUrl, endpointOf, escapeRegExp, fingerprint, keptHeaders, keyedRequest, storedFingerprint, type RequestNormaliser } from "./request.js";
import { utf8 } from "./body.js";

export { CASSETTE_MODES, type CassetteMode } from "./modes.js";

/** How a replayed stream is paced: at once (default), as recorded, or as recorded times a factor. */
export type CassetteTiming = "instant" | "recorded" | number;

export interface CassetteOptions {
  mode: CassetteMode;
  /** Rewrites applied to every request before it is keyed (ignore a body field, a query parameter, …). */
  normalise?: readonly RequestNormaliser[];
  /** Request headers that enter the key besides the built-in ones (lower-case names). */
  keepHeaders?: readonly string[];
  /** Response headers kept besides the built-in ones (lower-case names). */
  keepResponseHeaders?: readonly string[];
  /** Text redacted from requests and responses before they are stored (strings match literally). */
  redact?: readonly (string | RegExp)[];
  /**
   * Named secret values (`{ OPENAI_API_KEY: process.env.OPENAI_API_KEY }`): redacted wherever
   * they appear, and a cassette that would still hold one is refused.
   */
  secrets?: Secrets;
  timing?: CassetteTiming;
  /** The clock chunk offsets are measured with, in ms (default `performance.now`). */
  clock?: () => number;
  /** What a miss or a missing cassette tells the user to run to record it. */
  recordHint?: string;
}

/** A request as a cassette sees it: its parts, and how to send it on. */
export interface IncomingRequest {
  method: string;
  url: string;
  headers: Headers;
  /** The body's bytes, or its text when the caller has it as a string (an SDK's JSON). */
  body: Uint8Array | string | undefined;
}

export type Forward = () => Promise<Response>;

export interface UnusedEntry {
  entry: string;
  method: string;
  url: string;
  ordinal: number;
}

export interface CassetteSummary {
  file: string;
  mode: CassetteMode;
  served: number;
  recorded: number;
  unused: UnusedEntry[];
}

/** Response headers a client acts on; never cookies, request ids or dates, which vary per call. */
export const KEPT_RESPONSE_HEADERS: readonly string[] = ["content-type", "retry-after", "retry-after-ms", "x-should-retry"];

interface Slot {
  key: string;
  entry: CassetteEntry | undefined;
  used: boolean;
}

interface Prepared {
  headers: [string, string][];
  bytes: Uint8Array | undefined;
  chunks: { bytes: Uint8Array; at: number }[] | undefined;
}

const DEFAULT_HINT = "record it with --cassette-mode auto (records what is missing) or --record";

export class Cassette {
  readonly file: string;
  readonly mode: CassetteMode;
  readonly #options: CassetteOptions;
  /** Every entry the file will hold, in file order; a slot is empty while its exchange is in flight. */
  readonly #slots: Slot[] = [];
  readonly #byKey = new Map<string, Slot[]>();
  /** Fingerprint → key, for every stored request whose body is text: how a recorded request is found without keying it again. */
  readonly #byFingerprint = new Map<string, string>();
  readonly #calls = new Map<string, number>();
  readonly #prepared = new WeakMap<CassetteEntry, Prepared>();
  readonly #scrub: { text: (text: string) => string; value: <T>(value: T) => T };
  readonly #scrubText: (text: string) => string;
  readonly #scrubValue: <T>(value: T) => T;
  readonly #existed: boolean;
  #served = 0;
  #recorded = 0;
  #dirty = false;
  #closed = false;
  readonly misses: CassetteMissError[] = [];

  private constructor(file: string, options: CassetteOptions, entries: readonly CassetteEntry[], existed: boolean) {
    this.file = file;
    this.mode = options.mode;
    this.#options = options;
    this.#existed = existed;
    const secrets = Object.values(options.secrets ?? {}).filter((value): value is string => typeof value === "string" && value.length > 0);
    const redactor = createRedactor({ secrets, patterns: true });
    const configured = (options.redact ?? []).map((pattern) =>
      typeof pattern === "string" ? new RegExp(escapeRegExp(pattern), "g") : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    );
    this.#scrubText = (text) => configured.reduce((current, regex) => current.replace(regex, "[redacted]"), redactor.text(text));
    this.#scrubValue = <T>(value: T): T => (configured.length === 0 ? redactor.value(value) : (mapStrings(redactor.value(value), this.#scrubText) as T));
    this.#scrub = { text: this.#scrubText, value: this.#scrubValue };
    for (const entry of entries) this.#add({ key: entry.key, entry, used: false });
  }

  /** Opens the cassette at `file` for `options.mode`; in `replay` the file must exist. Throws CassetteError for a bad file. */
  static open(file: string, options: CassetteOptions): Cassette {
    if (options.mode === "live") return new Cassette(file, options, [], false);
    const document = readCassette(file);
    if (!document && options.mode === "replay") {
      throw new CassetteError("cassette_missing", `no cassette to replay; ${options.recordHint ?? DEFAULT_HINT}`, { file });
    }
    // `record` and `update` re-record over what is there; `record` keeps entries it did not reach.
    return new Cassette(file, options, document?.entries ?? [], document !== undefined);
  }

  /**
   * A cassette from a document already in memory (a bundle's, say), validated by the caller
   * (`parseCassette`). `file` names it in errors, and is where a recording mode writes.
   */
  static fromDocument(file: string, document: CassetteDocument, options: CassetteOptions): Cassette {
    return new Cassette(file, options, options.mode === "live" ? [] : document.entries, true);
  }

  #add(slot: Slot): void {
    this.#slots.push(slot);
    const same = this.#byKey.get(slot.key);
    if (same) same.push(slot);
    else this.#byKey.set(slot.key, [slot]);
    if (slot.entry) this.#remember(slot.entry);
  }

  #remember(entry: CassetteEntry): void {
    const print = storedFingerprint(entry.request);
    // A body redaction would change is never found by fingerprint (its stored form is not what
    // was sent); one it leaves alone is checked here once, not on every request that matches it.
    if (print !== undefined && this.#scrubText(print) === print) this.#byFingerprint.set(print, entry.key);
  }

  /**
   * The recorded answer to a request found by its fingerprint, when it is byte for byte one the
   * cassette holds: no parsing, canonical JSON or sha256. Left to the full keying when
   * normalisers may rewrite requests, or redaction would change this one.
   */
  #byPrint(request: IncomingRequest): Response | undefined {
    if (this.#options.normalise?.length) return undefined;
    const body = request.body === undefined ? "" : typeof request.body === "string" ? request.body : utf8(request.body);
    if (body === undefined) return undefined;
    let url: string;
    try {
      url = canonicalUrl(request.url);
    } catch {
      return undefined;
    }
    const key = this.#byFingerprint.get(fingerprint(request.method, url, keptHeaders(request.headers, this.#options.keepHeaders), body));
    if (key === undefined) return undefined;
    const ordinal = this.#calls.get(key) ?? 0;
    const slot = this.#byKey.get(key)?.[ordinal];
    if (!slot?.entry) return undefined;
    this.#calls.set(key, ordinal + 1);
    slot.used = true;
    this.#served++;
    return this.#replay(slot.entry);
  }

  /** The canonical form and key of a request, as this cassette's options make them. */
  keyOf(request: IncomingRequest): { canonical: CanonicalRequest; key: string; text: string } {
    const keyed = keyedRequest(request.method, request.url, request.headers, request.body, {
      ...(this.#options.keepHeaders ? { keepHeaders: this.#options.keepHeaders } : {}),
      ...(this.#options.normalise ? { normalise: this.#options.normalise } : {}),
      scrub: this.#scrub,
    });
    return { canonical: keyed.request, key: keyed.key, text: keyed.text };
  }

  /** Serves `request` from the cassette, or forwards and records it, as the mode says. */
  async respond(request: IncomingRequest, forward: Forward): Promise<Response> {
    if (this.#closed) throw new Error(`the cassette ${this.file} is closed`);
    if (this.mode === "live") return forward();
    if (this.mode === "replay" || this.mode === "auto") {
      const served = this.#byPrint(request);
      if (served) return served;
    }
    const { canonical, key } = this.keyOf(request);
    const ordinal = this.#calls.get(key) ?? 0;
    const recorded = this.#byKey.get(key)?.[ordinal];
    if (recorded?.entry && (this.mode === "replay" || this.mode === "auto")) {
      this.#calls.set(key, ordinal + 1);
      recorded.used = true;
      this.#served++;
      return this.#replay(recorded.entry!);
    }
    if (this.mode === "replay") {
      const miss = this.#miss(canonical, key, ordinal);
      this.misses.push(miss);
      throw miss;
    }
    this.#calls.set(key, ordinal + 1);
    return this.#record(canonical, key, ordinal, recorded, await forward());
  }

  #miss(canonical: CanonicalRequest, key: string, ordinal: number): CassetteMissError {
    const endpoint = endpointOf(canonical);
    const sameKey = this.#byKey.get(key)?.length ?? 0;
    const hint = this.#options.recordHint ?? DEFAULT_HINT;
    if (sameKey > 0) {
      return new CassetteMissError(
        `${canonical.method} ${canonical.url} was recorded ${sameKey} time${sameKey === 1 ? "" : "s"}, and this is call ${ordinal + 1}; ${hint}`,
        { file: this.file, key, ordinal },
      );
    }
    let nearest: { index: number; entry: CassetteEntry; distance: number } | undefined;
    this.#slots.forEach((slot, index) => {
      if (!slot.entry || endpointOf(slot.entry.request) !== endpoint) return;
      const d = distance(slot.entry.request, canonical);
      if (!nearest || d < nearest.distance) nearest = { index, entry: slot.entry, distance: d };
    });
    if (!nearest) {
      return new CassetteMissError(`${canonical.method} ${canonical.url}: the cassette has no request for this endpoint; ${hint}`, { file: this.file, key, ordinal });
    }
    const differences = requestDifferences(nearest.entry.request, canonical);
    const name = `entries[${nearest.index}]`;
    return new CassetteMissError(
      `${canonical.method} ${canonical.url} is not recorded; the nearest recorded request (${name}) differs in:\n` +
        differences.map((line) => `  ${line}`).join("\n") +
        `\n${hint}`,
      { file: this.file, key, ordinal, nearest: name, differences },
    );
  }

  #prepare(entry: CassetteEntry): Prepared {
    let prepared = this.#prepared.get(entry);
    if (!prepared) {
      const body = entry.response.body;
      prepared = {
        headers: Object.entries(entry.response.headers),
        bytes: body && !("chunks" in body) ? bodyBytes(body) : undefined,
        chunks: body && "chunks" in body ? body.chunks.map((chunk) => ({ bytes: chunkBytes(chunk), at: chunk.at })) : undefined,
      };
      this.#prepared.set(entry, prepared);
    }
    return prepared;
  }

  #replay(entry: CassetteEntry): Response {
    const prepared = this.#prepare(entry);
    const status = entry.response.status;
    const init = { status, headers: prepared.headers };
    if (status === 204 || status === 205 || status === 304) return new Response(null, init);
    if (prepared.chunks) return new Response(chunkStream(prepared.chunks, this.#options.timing ?? "instant"), init);
    return new Response(prepared.bytes ? prepared.bytes.slice() : null, init);
  }

  #keptHeaders(headers: Headers): Record<string, string> {
    const names = [...KEPT_RESPONSE_HEADERS, ...(this.#options.keepResponseHeaders ?? []).map((name) => name.toLowerCase())].filter((name) => !/^(?:set-cookie|authorization|cookie)$/.test(name));
    const kept: Record<string, string> = {};
    for (const name of [...new Set(names)].sort()) {
      const value = headers.get(name);
      if (value !== null) kept[name] = this.#scrubText(value);
    }
    return kept;
  }

  /** Records the exchange; the caller gets the response as the cassette stores it (same headers), a stream passed through as it arrives. */
  async #record(request: CanonicalRequest, key: string, ordinal: number, existing: Slot | undefined, live: Response): Promise<Response> {
    const slot: Slot = existing ?? { key, entry: undefined, used: true };
    if (!existing) this.#add(slot);
    slot.used = true;
    const headers = this.#keptHeaders(live.headers);
    const contentType = live.headers.get("content-type") ?? undefined;
    const complete = (response: StoredResponse): void => {
      const previous = slot.entry;
      slot.entry = { key, ordinal, request, response };
      this.#remember(slot.entry);
      try {
        this.#write();
      } catch (error) {
        // A refused entry (it holds a secret) is not kept, not even for a later write.
        slot.entry = previous;
        throw error;
      }
      this.#recorded++;
      this.#dirty = true;
    };
    const init = { status: live.status, headers };
    if (live.body && isStreamType(contentType)) {
      const clock = this.#options.clock ?? (() => performance.now());
      const started = clock();
      const chunks: StoredChunk[] = [];
      const reader = live.body.getReader();
      const scrubChunk = (bytes: Uint8Array): StoredChunk => {
        const stored = storeChunk(bytes, Math.round(clock() - started));
        return "text" in stored ? { at: stored.at, text: this.#scrubText(stored.text) } : stored;
      };
      const stream = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) {
            // Written before the caller sees the end: a refusal (a secret in the stream) fails the read.
            try {
              complete({ status: live.status, headers, body: { chunks } });
            } catch (error) {
              controller.error(error);
              return;
            }
            controller.close();
            return;
          }
          chunks.push(scrubChunk(value));
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(stream, init);
    }
    const bytes = new Uint8Array(await live.arrayBuffer());
    const stored = bytes.length ? storeBody(bytes, contentType) : undefined;
    const body = stored ? ("json" in stored ? { ...stored, json: this.#scrubValue(stored.json) } : "text" in stored ? { text: this.#scrubText(stored.text) } : stored) : undefined;
    complete({ status: live.status, headers, ...(body ? { body } : {}) });
    const nullBody = live.status === 204 || live.status === 205 || live.status === 304;
    return new Response(nullBody ? null : bytes, init);
  }

  #write(): void {
    const entries = this.#slots.filter((slot) => slot.entry && (this.mode !== "update" || slot.used || !this.#closed)).map((slot) => slot.entry!);
    writeCassette(this.file, entries, this.#options.secrets ?? {});
  }

  /** Entries not served or re-recorded so far, as a replay reports them. */
  unused(): UnusedEntry[] {
    const unused: UnusedEntry[] = [];
    this.#slots.forEach((slot, index) => {
      if (slot.used || !slot.entry) return;
      unused.push({ entry: `entries[${index}]`, method: slot.entry.request.method, url: slot.entry.request.url, ordinal: slot.entry.ordinal });
    });
    return unused;
  }

  /** Ends the session: `update` drops unused entries, `record` writes the file even when nothing was recorded. */
  close(): CassetteSummary {
    const unused = this.unused();
    if (!this.#closed) {
      this.#closed = true;
      if (this.mode === "update" && unused.length > 0) this.#dirty = true;
      if (this.mode !== "live" && this.mode !== "replay" && (this.#dirty || (!this.#existed && this.mode !== "auto"))) this.#write();
    }
    return { file: this.file, mode: this.mode, served: this.#served, recorded: this.#recorded, unused };
  }
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  return value;
}

/** The recorded chunks as a stream, one chunk per read (boundaries as recorded), paced as `timing` says. */
function chunkStream(chunks: readonly { bytes: Uint8Array; at: number }[], timing: CassetteTiming): ReadableStream<Uint8Array> {
  const factor = timing === "instant" ? 0 : timing === "recorded" ? 1 : timing;
  let next = 0;
  let previous = 0;
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const chunk = chunks[next++];
      if (!chunk) return controller.close();
      const wait = (chunk.at - previous) * factor;
      previous = chunk.at;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      controller.enqueue(chunk.bytes.slice());
    },
  });
}
