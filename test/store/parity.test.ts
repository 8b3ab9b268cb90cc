/**
 * The memory store and the SQLite store are one contract: for any sequence of appends they
 * accept and refuse the same events, with the same typed error, and return the same bytes. Bytes
 * the codec made (sealed) are taken as checked by the first store given them and checked in full
 * by the second, so the property also holds the fast path to the full check.
 */
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { EVENT_FORMAT_VERSION, type RunEvent, type RunStore } from "../../src/contracts/index.js";
import { encodeEvents } from "../../src/journal/index.js";
import { MemoryRunStore, SqliteRunStore } from "../../src/store/index.js";
import { tempDir } from "../helpers.js";

const at = "2026-01-01T00:00:00.000Z";

/** Values that canonical JSON or the schema may refuse or alter. */
const hostile = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e400, 2 ** 53 + 1, "\ud800", "é", "\u2028", null, undefined, { __proto__: null }, [1, [2]]),
  fc.string({ maxLength: 4 }),
  fc.double(),
  fc.integer(),
);

type Build = (runId: string, seq: number) => unknown;

/** A mostly valid event, sometimes with a hostile value in it, for any run and seq. */
const event: fc.Arbitrary<Build> = fc.oneof(
  fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: hostile }).map((content): Build => (runId, seq) => ({ v: EVENT_FORMAT_VERSION, runId, seq, at, type: "message", role: "user", content })),
  fc.tuple(fc.oneof(fc.double(), hostile), fc.oneof(fc.constant(1), hostile)).map(
    ([score, rank]): Build =>
      (runId, seq) => ({ v: EVENT_FORMAT_VERSION, runId, seq, at, type: "retrieval", callId: "c", tool: "search", query: "q", chunks: [{ id: "a", source: "a.md", text: "t", score, rank }] }),
  ),
  hostile.map((result): Build => (runId, seq) => ({ v: EVENT_FORMAT_VERSION, runId, seq, at, type: "tool.finished", callId: "c", name: "t", result })),
  fc.constant<Build>((runId, seq) => ({ v: EVENT_FORMAT_VERSION, runId, seq, at, type: "run.resumed" })),
  fc.constant<Build>((runId, seq) => ({ v: EVENT_FORMAT_VERSION, runId, seq, at, type: "no.such.type" })),
);

/** One append: events of runs "r"/"s" from the next seq (or off by one), or one raw body spelled some way. */
interface Batch {
  raw: boolean;
  /** "sealed": the codec's own bytes, which the first store takes as checked and the second checks in full. */
  spelling: "canonical" | "spaced" | "reordered" | "not json" | "sealed";
  skew: number;
  events: { runId: string; build: Build }[];
}

const batch: fc.Arbitrary<Batch> = fc.record({
  raw: fc.boolean(),
  spelling: fc.constantFrom("canonical", "spaced", "reordered", "not json", "sealed", "sealed"),
  skew: fc.constantFrom(0, 0, 0, 1, -1),
  events: fc.array(fc.record({ runId: fc.constantFrom("r", "r", "s"), build: event }), { minLength: 1, maxLength: 3 }),
});

type Append = { raw: false; events: unknown[] } | { raw: true; bodies: string[] };

function materialise(spec: Batch, store: RunStore): Append {
  const first = spec.events[0] as { runId: string };
  const next = store.lastSeq(first.runId) + 1 + spec.skew;
  const events = spec.events.map((item, index) => item.build(item.runId, next + index));
  if (!spec.raw) return { raw: false, events };
  if (spec.spelling === "sealed") {
    try {
      return { raw: true, bodies: encodeEvents(events as RunEvent[]) as string[] };
    } catch {
      // Events the codec refuses: their plain canonical bytes, which both stores check in full.
    }
  }
  return {
    raw: true,
    bodies: events.map((value) => {
      let body: string;
      try {
        body = canonicalJson(value);
      } catch {
        body = JSON.stringify(value) ?? "null";
      }
      if (spec.spelling === "spaced") body = JSON.stringify(JSON.parse(body), null, 1);
      if (spec.spelling === "reordered" && body.startsWith("{")) body = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(body) as object).reverse()));
      if (spec.spelling === "not json") body = body.slice(0, -1);
      return body;
    }),
  };
}

function attempt(store: RunStore, batch: Append): string {
  try {
    // What appendRaw gives back is what a reader will see, whether the store checked the bytes or took them as checked.
    if (batch.raw) return `ok ${JSON.stringify(store.appendRaw(batch.bodies).map((event) => [event, Object.keys(event).sort()]))}`;
    store.append(batch.events as RunEvent[]);
    return "ok";
  } catch (error) {
    const typed = error as { name?: string; code?: string; message?: string };
    return `${typed.name} ${typed.code} ${typed.message}`;
  }
}

describe("memory and SQLite stores", () => {
  it("accept and refuse the same appends, with the same typed error, and return the same bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 8 }), async (batches) => {
        const memory = new MemoryRunStore();
        const sqlite = new SqliteRunStore(join(tempDir(), "runs.db"));
        try {
          for (const spec of batches) {
            const append = materialise(spec, memory);
            const results = [attempt(memory, append), attempt(sqlite, append)];
            expect(results[1]).toBe(results[0]);
            for (const runId of ["r", "s"]) {
              expect(sqlite.readRaw(runId)).toEqual(memory.readRaw(runId));
              expect(sqlite.read(runId)).toEqual(memory.read(runId));
              for (const body of memory.readRaw(runId)) expect(canonicalJson(JSON.parse(body))).toBe(body);
            }
          }
          expect(sqlite.list()).toEqual(memory.list());
        } finally {
          sqlite.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("refuse a NaN retrieval score with the same EventFormatError, naming the field", () => {
    const nan = { v: EVENT_FORMAT_VERSION, runId: "r", seq: 1, at, type: "retrieval", callId: "c", tool: "s", query: "q", chunks: [{ id: "a", source: "a", text: "t", score: Number.NaN, rank: 1 }] };
    const errors = [new MemoryRunStore(), new SqliteRunStore(join(tempDir(), "runs.db"))].map((store) => {
      try {
        store.append([nan as RunEvent]);
        return undefined;
      } catch (error) {
        return error as { name: string; code: string; place: { path?: string } };
      } finally {
        expect(store.lastSeq("r")).toBe(0);
        store.close();
      }
    });
    expect(errors[0]).toMatchObject({ name: "EventFormatError", code: "event_invalid", place: { path: "$.chunks[0].score" } });
    expect(errors[1]).toMatchObject({ name: "EventFormatError", code: "event_invalid", place: { path: "$.chunks[0].score" } });
  });

  it("list runs in the same bytewise order (never the locale's)", () => {
    const started = (runId: string): RunEvent => ({
      v: EVENT_FORMAT_VERSION,
      runId,
      seq: 1,
      at,
      type: "run.started",
      agent: { name: "a", digest: "d" },
      model: { provider: "scripted", model: "m" },
      seed: 0,
      config: null,
    });
    const memory = new MemoryRunStore();
    const sqlite = new SqliteRunStore(join(tempDir(), "runs.db"));
    for (const runId of ["a", "B", "é", "e", "Z", "ä"]) for (const store of [memory, sqlite]) store.append([started(runId)]);
    const order = (store: RunStore) => store.list().map((row) => row.runId);
    expect(order(memory)).toEqual(["é", "ä", "e", "a", "Z", "B"]);
    expect(order(sqlite)).toEqual(order(memory));
    sqlite.close();
  });
});
