import { canonicalJson } from "../canonical/index.js";
import { CanonicalJsonError, EventFormatError, type ErrorPlace } from "../errors/index.js";
import { RunEventSchema, type RunEvent } from "../contracts/index.js";

/**
 * The one serialisation of an event: its canonical JSON. Both stores keep exactly these bytes
 * (and check them with `checkStoredBody`), so a log hash, a bundle or a replay reads what was
 * written. What canonical JSON cannot hold unchanged (NaN, a lone surrogate, …) is an
 * EventFormatError naming the run, the seq and the field.
 */
export function serializeEvent(event: RunEvent, place: ErrorPlace = placeOf(event)): string {
  try {
    const body = canonicalJson(event);
    remember(body);
    return body;
  } catch (error) {
    if (error instanceof CanonicalJsonError) throw new EventFormatError(error.message, { ...place, ...(error.place.path ? { path: error.place.path } : {}) });
    throw error;
  }
}

/**
 * Checks bytes a store is asked to keep: valid JSON, canonical (re-serialising gives the same
 * bytes) and a valid event. Returns the event they hold. Both stores call this on append, so
 * they accept and refuse exactly the same logs.
 */
export function checkStoredBody(body: string, place: ErrorPlace = {}): RunEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new EventFormatError(`not valid JSON: ${(error as Error).message}`, place);
  }
  const event = checkSchema(value, place);
  // Bytes this process just produced with canonicalJson are canonical by construction.
  if (fresh.delete(body)) return event;
  let canonical: string;
  try {
    canonical = canonicalJson(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError) throw new EventFormatError(error.message, { ...placeOf(event, place), ...(error.place.path ? { path: error.place.path } : {}) });
    throw error;
  }
  if (canonical !== body) throw new EventFormatError("not in canonical form (keys sorted, no spaces, shortest numbers): the store keeps canonical bytes only", placeOf(event, place));
  return event;
}

/**
 * Bodies serialised here and not yet checked by a store: the writer's bytes need not be
 * canonicalised a second time. Bounded, so bodies serialised and never stored are let go.
 */
const fresh = new Set<string>();
const FRESH_LIMIT = 64;

function remember(body: string): void {
  if (fresh.size >= FRESH_LIMIT) fresh.clear();
  fresh.add(body);
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
  }
  return checkSchema(value, place);
}

function checkSchema(value: unknown, place: ErrorPlace): RunEvent {
  const result = RunEventSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue ? issue.path.join(".") : "";
    throw new EventFormatError(`invalid event${path ? ` at ${path}` : ""}: ${issue?.message ?? "unknown problem"}`, place);
  }
  return result.data;
}

function placeOf(event: unknown, fallback: ErrorPlace = {}): ErrorPlace {
  const candidate = event as { runId?: unknown; seq?: unknown } | null;
  const place: ErrorPlace = { ...fallback };
  if (candidate && typeof candidate.runId === "string") place.runId = candidate.runId;
  if (candidate && typeof candidate.seq === "number") place.seq = candidate.seq;
  return place;
}
