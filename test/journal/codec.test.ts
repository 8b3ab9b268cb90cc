/**
 * The codec checks an event once, where it is made: the event the writer keeps is the copy it
 * validated, which must be exactly what a reader parses from the bytes; bytes it made are taken by
 * a store without a second check, and any other bytes are checked in full.
 */
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { manualClock } from "../../src/context/index.js";
import { EVENT_FORMAT_VERSION, type RunEvent } from "../../src/contracts/index.js";
import { EventFormatError } from "../../src/errors/index.js";
import { checkStoredBodies, encodeEvents, parseEvent, preparePayload, stampPayloads } from "../../src/journal/index.js";
import { MemoryRunStore, RunLog, SqliteRunStore } from "../../src/store/index.js";
import { tempDir } from "../helpers.js";

/** JSON-like values with what canonical JSON treats specially: -0, undefined properties, index and __proto__ keys. */
const awkward = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(-0, 0, 1.5, 1e21, "", "é", "\u2028", null, true),
    fc.string({ maxLength: 5 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.constantFrom("a", "b", "10", "2", "__proto__", "z"), fc.oneof(tie("value"), fc.constant(undefined))), { maxLength: 4 })
      .map((entries) => {
        const object: Record<string, unknown> = {};
        for (const [key, item] of entries) Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
        return object;
      }),
  ),
})).value;

describe("the event codec", () => {
  it("gives the writer exactly the events a reader parses from the bytes, for any payload", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(awkward, { minLength: 1, maxLength: 4 }), fc.boolean(), async (results, sqlite) => {
        const store = sqlite ? new SqliteRunStore(join(tempDir(), "runs.db")) : new MemoryRunStore();
        try {
          const log = RunLog.create("r", store, manualClock(Date.UTC(2026, 0, 1), 7));
          const written = log.appendAll(results.map((result, index) => ({ type: "tool.finished" as const, callId: `c${index}`, name: "t", result })));
          expect(written).toStrictEqual(store.read("r"));
          expect(store.readRaw("r")).toEqual(written.map((event) => canonicalJson(event)));
        } finally {
          store.close();
        }
      }),
      { numRuns: 80 },
    );
  });

  it("lets a store take the bytes it made without parsing them, once; the same bytes again are checked in full", () => {
    const event: RunEvent = { v: EVENT_FORMAT_VERSION, runId: "r", seq: 1, at: "2026-01-01T00:00:00.000Z", type: "message", role: "user", content: "hi" };
    const bodies = encodeEvents([event]);
    expect(Object.isFrozen(bodies)).toBe(true);
    const first = checkStoredBodies(bodies);
    const second = checkStoredBodies(bodies);
    expect(first).toStrictEqual([parseEvent(bodies[0])]);
    expect(second).toStrictEqual(first);
    expect(second[0]).not.toBe(first[0]);
    // A copy of the array is not the codec's own: checked in full, so a changed body is caught.
    const forged = [...bodies];
    forged[0] = (forged[0] as string).replace('"hi"', '"hi" ');
    expect(() => checkStoredBodies(forged)).toThrow(/not in canonical form/);
  });

  it("keeps no object of the writer's in the event it stores", () => {
    const args = { nested: { n: 1 } };
    const log = RunLog.create("r", new MemoryRunStore(), manualClock(0, 1));
    const [stored] = log.appendAll([{ type: "tool.finished", callId: "c", name: "t", result: args }]) as [Extract<RunEvent, { type: "tool.finished" }>];
    args.nested.n = 2;
    expect(stored.result).toEqual({ nested: { n: 1 } });
  });

  it("refuses a payload the stores would refuse, naming the field, before any clock is read", () => {
    expect(() => preparePayload({ type: "retrieval", callId: "c", tool: "s", query: "q", chunks: [{ id: "a", source: "a", text: "t", score: Number.NaN, rank: 1 }] } as never)).toThrow(
      expect.objectContaining({ name: "EventFormatError", place: expect.objectContaining({ path: "$.chunks[0].score" }) }) as Error,
    );
    expect(() => preparePayload({ type: "retrieval", callId: "c", tool: "s", query: "q", chunks: [{ id: "a", source: "a", text: "t", score: 1, rank: 0 }] } as never)).toThrow(/invalid event at chunks\.0\.rank/);
    const prepared = preparePayload({ type: "run.resumed" });
    expect(() => stampPayloads([{ stamp: { v: EVENT_FORMAT_VERSION, runId: "", seq: 1, at: "x" }, payload: prepared }])).toThrow(EventFormatError);
    expect(() => stampPayloads([{ stamp: { v: EVENT_FORMAT_VERSION, runId: "r", seq: 1, at: "x", durationMs: Number.NaN }, payload: prepared }])).toThrow(/durationMs/);
  });

  it("checks a tool outcome once: what refusal checked is what appending stores", () => {
    const log = RunLog.create("r", new MemoryRunStore(), manualClock(0, 1));
    const outcome = { type: "tool.finished" as const, callId: "c", name: "t", result: { ok: 1e400 } };
    expect(log.refusal([outcome])).toMatch(/^tool\.finished at \$\.result\.ok: Infinity cannot be represented in JSON$/);
    const fine = { type: "tool.finished" as const, callId: "c", name: "t", result: { ok: 1 } };
    expect(log.refusal([fine])).toBeUndefined();
    expect(log.appendAll([fine])).toStrictEqual(log.store.read("r"));
  });
});

describe("stamping a payload whose keys name Object.prototype's members", () => {
  it("a payload key such as \"constructor\" is written like any other key, not taken from the stamp's prototype (found in review)", () => {
    const payload = { type: "message", role: "user", content: "hi", constructor: "x", foo: "y" } as unknown as Parameters<typeof preparePayload>[0];
    const [body] = stampPayloads([{ stamp: { v: 1, runId: "r", seq: 1, at: "2026-01-01T00:00:00.000Z" }, payload: preparePayload(payload) }]);
    expect(body).toBe('{"at":"2026-01-01T00:00:00.000Z","constructor":"x","content":"hi","foo":"y","role":"user","runId":"r","seq":1,"type":"message","v":1}');
  });
});
