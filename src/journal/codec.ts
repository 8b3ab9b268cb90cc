import { canonicalCopy, canonicalJson, canonicalText, grownFrom, isCanonicalTextOf, isImmutable, NOT_PLAIN, sortKeys, type CanonicalCopy } from "../canonical/index.js";
import { checkedCopier } from "./checked-copy.js";
import { CanonicalJsonError, EventFormatError, type ErrorPlace } from "../errors/index.js";
import { EVENT_FORMAT_VERSION, LlmFinishedSchema, LlmRequestSchema, MessageSchema, RunEventSchema, type Message, type RunEvent, type RunEventType } from "../contracts/index.js";
import { checkedParse } from "../contracts/checked-parse.js";
import { acceptedAsIs } from "../contracts/as-is.js";
import { z } from "zod";

/**
 * The one serialisation of an event: its canonical JSON. Both stores keep exactly these bytes
 * (and check them with `checkStoredBody`), so a log hash, a bundle or a replay reads what was
 * written. What canonical JSON cannot hold unchanged (NaN, a lone surrogate, …) is an
 * EventFormatError naming the run, the seq and the field.
 */
export function serializeEvent(event: RunEvent, place: ErrorPlace = placeOf(event)): string {
  return canonical(() => canonicalJson(event), place);
}

/**
 * Checks bytes a store is asked to keep: valid JSON, canonical (re-serialising gives the same
 * bytes) and a valid event. Returns the event they hold. Both stores call this (through
 * `checkStoredBodies`) on append, so they accept and refuse exactly the same logs.
 */
export function checkStoredBody(body: string, place: ErrorPlace = {}): RunEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new EventFormatError(`not valid JSON: ${(error as Error).message}`, place);
  }
  const event = checkFreshEvent(value, place);
  if (!canonical(() => isCanonicalTextOf(value, body), placeOf(event, place))) throw new EventFormatError("not in canonical form (keys sorted, no spaces, shortest numbers): the store keeps canonical bytes only", placeOf(event, place));
  return event;
}

/**
 * Bodies this codec made from typed events, with the events they hold. The writer's own bytes
 * are checked where they are made — the event validated once, then serialised once — so a
 * store given them takes the checked events instead of parsing and validating the bytes again.
 * The arrays are frozen, so the pairing cannot go stale; each is taken once (a second store
 * given the same array checks it in full and gets its own objects).
 */
const sealed = new WeakMap<readonly string[], readonly RunEvent[]>();

function seal(bodies: string[], events: readonly RunEvent[]): readonly string[] {
  const frozen = Object.freeze(bodies);
  sealed.set(frozen, events);
  return frozen;
}

/**
 * What a store checks before it keeps bodies: bodies this codec sealed give back the events it
 * checked when it made them; any other bytes are checked in full (`checkStoredBody`). Either
 * way the result is what a reader of the bytes will get.
 */
export function checkStoredBodies(bodies: readonly string[], place: ErrorPlace = {}): RunEvent[] {
  const known = sealed.get(bodies);
  if (known) {
    sealed.delete(bodies);
    return [...known];
  }
  return bodies.map((body) => checkStoredBody(body, place));
}

/**
 * Whole events, checked and serialised for a store: each is copied canonically (which refuses
 * what JSON cannot hold), the copy validated, and the copy written. The copy, not the caller's
 * object, becomes the stored event, so no reader shares an object with the writer.
 */
export function encodeEvents(events: readonly RunEvent[], place: ErrorPlace = {}): readonly string[] {
  const checked = checkEvents(events, place);
  return seal(checked.bodies, checked.events);
}

/**
 * What `encodeEvents` makes, unsealed: for a store's own `append`, which writes the bodies
 * itself and so needs no seal to learn that they were checked.
 */
export function checkEvents(events: readonly RunEvent[], place: ErrorPlace = {}): { events: RunEvent[]; bodies: string[] } {
  const checked: RunEvent[] = [];
  const bodies: string[] = [];
  for (const event of events) {
    // One walk does it when the schema can guide it (see checked-copy.ts); else the two steps.
    const type = (event as { type?: unknown } | null)?.type;
    const schema = typeof type === "string" ? EVENT_SCHEMAS.get(type as RunEventType) : undefined;
    const copier = schema && checkedCopier(schema);
    const copy = copier ? copier(event, 0) : NOT_PLAIN;
    if (copy !== NOT_PLAIN) {
      checked.push(copy as RunEvent);
      bodies.push(JSON.stringify(copy));
      continue;
    }
    try {
      const form = canonicalCopy(event);
      checked.push(checkFreshEvent(form.copy, place));
      bodies.push(canonicalText(form));
    } catch (error) {
      // The run and seq are named only when something is refused: building the place for every event costs.
      const refused = error instanceof CanonicalJsonError ? canonicalRefusal(error, place) : error;
      if (refused instanceof EventFormatError) throw new EventFormatError(refused.message, { ...placeOf(event, place), ...refused.place });
      throw refused;
    }
  }
  return { events: checked, bodies };
}

/** The envelope fields the log stamps on a payload (and an `llm.finished`'s duration). */
export interface Stamp {
  v: typeof EVENT_FORMAT_VERSION;
  runId: string;
  seq: number;
  at: string;
  durationMs?: number;
}

/** A payload already checked (schema and canonical form) and copied, waiting for its stamp. */
export interface PreparedPayload {
  readonly type: RunEventType;
  /** The payload's canonical copy (see canonicalCopy). */
  readonly form: CanonicalCopy & { readonly copy: Record<string, unknown> };
  /**
   * The copy as the schema gave it back: the stored event's fields. It is `form.copy` itself
   * when the schema would give the copy back unchanged; else zod's copy of it.
   */
  readonly data: Record<string, unknown>;
}

const STAMP_KEYS = ["v", "runId", "seq", "at", "durationMs"] as const;
const STAMP_ORDER: readonly string[] = [...STAMP_KEYS].sort();
/** The stamp of every event but an llm.finished, which alone has a duration. */
const STAMP_ORDER_UNTIMED = STAMP_ORDER.filter((key) => key !== "durationMs");

const StampSchema = LlmFinishedSchema.pick({ v: true, runId: true, seq: true, at: true, durationMs: true }).partial({ durationMs: true });

/** Per event type, its schema: a known type is checked against it directly, not through the union. Built once. */
const EVENT_SCHEMAS = new Map<RunEventType, Schema>(RunEventSchema.options.map((schema) => [schema.shape.type.value, schema as unknown as Schema]));

/** Per event type, the schema of what a writer hands over: the event without its stamp. Built once. */
const PAYLOAD_SCHEMAS = new Map(
  RunEventSchema.options.map((schema) => {
    const type: RunEventType = schema.shape.type.value;
    const stamped = Object.fromEntries(STAMP_KEYS.filter((key) => key in schema.shape).map((key) => [key, true as const]));
    return [type, (schema as unknown as { omit(mask: Record<string, true>): Schema }).omit(stamped)] as const;
  }),
);

/**
 * Conversation messages already checked: immutable ones (the run state's, see `immutable`) that
 * the message schema accepted and gives back unchanged. The conversation is the one part of a
 * payload that repeats — every `llm.started` holds all of it — so each message is checked
 * once, and the events share it instead of holding a copy each.
 */
const checkedMessages = new WeakSet<object>();

function isCheckedMessage(value: unknown): boolean {
  if (checkedMessages.has(value as object)) return true;
  // Shared as it is, so it must be what zod would give back, prototype included: zod makes
  // a plain object of a null-prototype one, which a reader of the text gets too.
  if (!isImmutable(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const parsed = checkedParse(MessageSchema, value);
  // The schema drops keys it does not know: such a message is not what its event would hold.
  if (!parsed.success || canonicalJson(parsed.data) !== canonicalJson(value)) return false;
  checkedMessages.add(value);
  return true;
}

/** Immutable conversation lists whose every message is checked. */
const checkedLists = new WeakSet<object>();

/** Every message is checked; a list grown from a checked one checks only what it added. */
function isCheckedConversation(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  if (checkedLists.has(list)) return true;
  const immutableList = isImmutable(list);
  const earlier = immutableList ? grownFrom(list) : undefined;
  const from = earlier !== undefined && checkedLists.has(earlier) ? earlier.length : 0;
  for (let index = from; index < list.length; index++) if (!isCheckedMessage(list[index])) return false;
  if (immutableList) checkedLists.add(list);
  return true;
}

/**
 * Per type, a schema that takes checked messages as they are (only `llm.started` holds any).
 * A payload it refuses is checked by the type's own schema, which gives its result and its
 * error: the shortcut decides nothing, it only skips work already done.
 */
const SHORTCUT_SCHEMAS = new Map<RunEventType, Schema>([
  [
    "llm.started",
    (PAYLOAD_SCHEMAS.get("llm.started") as unknown as z.ZodObject).extend({
      // One check of the whole list: a schema per message costs more than the check itself.
      request: LlmRequestSchema.extend({ messages: z.custom<Message[]>(isCheckedConversation) }),
    }),
  ],
]);

/**
 * Checks one payload as the stores would check the event it becomes: canonical JSON can hold
 * it unchanged, and it matches its type's schema. Reads no clock and keeps nothing, so a
 * writer can learn whether an outcome can be stored before it commits to it.
 */
export function preparePayload(payload: { type: RunEventType }, place: ErrorPlace = {}): PreparedPayload {
  const form = canonical(() => canonicalCopy(payload), place) as PreparedPayload["form"];
  // The type as the copy holds it, read once: the payload's own `type` could be a getter that
  // answers one thing to the copy and another to a later read (the schema, the stamp's duration).
  const type = form.copy.type as RunEventType;
  // Only a conversation the run state registered can pass the shortcut: any other would fail it
  // (an issue built and thrown away) and then be checked in full anyway.
  const shortcut = SHORTCUT_SCHEMAS.get(type);
  const quick = shortcut && isImmutable((form.copy.request as { messages?: unknown } | undefined)?.messages) ? shortcut : undefined;
  if (quick && acceptedAsIs(quick, form.copy)) return { type, form, data: form.copy };
  const viaShortcut = quick ? checkedParse(quick, form.copy) : undefined;
  if (viaShortcut?.success) return { type, form, data: viaShortcut.data as Record<string, unknown> };
  const schema = PAYLOAD_SCHEMAS.get(type);
  if (schema && acceptedAsIs(schema, form.copy)) return { type, form, data: form.copy };
  // An unknown type: the event schema names the problem as a store would.
  const data = (schema ? checkSchema(schema, form.copy, place) : checkSchema(RunEventSchema, form.copy, place)) as Record<string, unknown>;
  return { type, form, data };
}

/**
 * Stamps prepared payloads and serialises each once, into bodies a store takes without checking
 * again. The stamp wins over a payload field of the same name. Each payload is consumed: its
 * checked data becomes the stored event.
 */
export function stampPayloads(items: readonly { stamp: Stamp; payload: PreparedPayload }[]): readonly string[] {
  const bodies: string[] = [];
  const events: RunEvent[] = [];
  for (const { stamp, payload } of items) {
    if (!validStamp(stamp)) checkSchema(StampSchema, stamp, { runId: stamp.runId, seq: stamp.seq });
    // Only an llm.finished has a duration, and it must: the schema of every other type would drop one.
    const timed = stamp.durationMs !== undefined;
    if (timed !== (payload.type === "llm.finished")) {
      throw new EventFormatError(timed ? `durationMs is stamped on an llm.finished only, not on a ${payload.type}` : "an llm.finished must be stamped with its durationMs", { runId: stamp.runId, seq: stamp.seq });
    }
    const merged: Record<string, unknown> = {};
    const { copy } = payload.form;
    const stampKeys = timed ? STAMP_ORDER : STAMP_ORDER_UNTIMED;
    // A sorted copy's keys are in order already: sorting by insertion only moves the stamp's into place.
    const keys = sortKeys([...Object.keys(copy), ...stampKeys]);
    for (const key of keys) {
      // Own keys only: a payload key such as "constructor" is the payload's, not Object's.
      const value = Object.hasOwn(stamp, key) ? stamp[key as keyof Stamp] : copy[key];
      // Assigning "__proto__" would set the prototype (such a copy is not `sorted`, so the general writer writes it).
      if (key === "__proto__") Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
      else merged[key] = value;
    }
    bodies.push(canonicalText({ copy: merged, sorted: payload.form.sorted, big: payload.form.big }));
    // The copy the schema vouched for, stamped, is the event: its keys in the order its text
    // has, as every other path of the log hands them out. What zod gave back instead is stamped.
    events.push((payload.data === copy ? merged : Object.assign(payload.data, stamp)) as unknown as RunEvent);
  }
  return seal(bodies, events);
}

/** The stamp check's fast path; anything it does not pass goes to the schema, which names the field. */
function validStamp(stamp: Stamp): boolean {
  return (
    stamp.v === EVENT_FORMAT_VERSION &&
    typeof stamp.runId === "string" &&
    stamp.runId.length > 0 &&
    Number.isSafeInteger(stamp.seq) &&
    stamp.seq > 0 &&
    typeof stamp.at === "string" &&
    (stamp.durationMs === undefined || (Number.isFinite(stamp.durationMs) && stamp.durationMs >= 0))
  );
}

/** Validates one stored event; the error names the run, the seq and the first bad field. */
export function parseEvent(input: string | unknown, place: ErrorPlace = {}): RunEvent {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new EventFormatError(`not valid JSON: ${(error as Error).message}`, place);
    }
    return checkFreshEvent(value, place);
  }
  return checkSchema(RunEventSchema, value, place) as RunEvent;
}

/**
 * Checks an event this module made and owns (a canonical copy, or what JSON.parse gave): when
 * its type's schema would give back an equal value, the value itself is the result, so every
 * path (written, sealed, parsed back) hands out an equal plain object, its fields in their
 * text's order. Nothing a caller can still change is handed out this way: a canonical copy shares
 * only parts registered immutable (deep-frozen, see `immutable`), and a caller's own object
 * given to `parseEvent` goes to zod, which copies it.
 */
function checkFreshEvent(value: unknown, place: ErrorPlace): RunEvent {
  const type = (value as { type?: unknown } | null)?.type;
  const schema = typeof type === "string" ? EVENT_SCHEMAS.get(type as RunEventType) : undefined;
  if (schema && acceptedAsIs(schema, value)) return value as RunEvent;
  return checkSchema(schema ?? RunEventSchema, value, place) as RunEvent;
}

type Schema = z.ZodType;

function checkSchema(schema: Schema, value: unknown, place: ErrorPlace): unknown {
  const result = checkedParse(schema, value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue ? issue.path.join(".") : "";
    throw new EventFormatError(`invalid event${path ? ` at ${path}` : ""}: ${issue?.message ?? "unknown problem"}`, place);
  }
  return result.data;
}

/** Runs a canonical-JSON step, turning its refusal into an EventFormatError at the field. */
function canonical<T>(step: () => T, place: ErrorPlace): T {
  try {
    return step();
  } catch (error) {
    throw error instanceof CanonicalJsonError ? canonicalRefusal(error, place) : error;
  }
}

function canonicalRefusal(error: CanonicalJsonError, place: ErrorPlace): EventFormatError {
  return new EventFormatError(error.message, { ...place, ...(error.place.path ? { path: error.place.path } : {}) });
}

function placeOf(event: unknown, fallback: ErrorPlace = {}): ErrorPlace {
  const candidate = event as { runId?: unknown; seq?: unknown } | null;
  const place: ErrorPlace = { ...fallback };
  if (candidate && typeof candidate.runId === "string") place.runId = candidate.runId;
  if (candidate && typeof candidate.seq === "number") place.seq = candidate.seq;
  return place;
}
