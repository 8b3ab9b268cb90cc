/**
 * Events whose properties do more than hold data: getters with side effects, keys JSON never
 * writes, arrays that change while they are read. Whatever such an event is, the log either
 * refuses it (EventFormatError) or keeps bytes that read back as the event it returned.
 */
import { describe, expect, it } from "vitest";
import { isDeepStrictEqual } from "node:util";
import { canonicalCopy, canonicalJson, immutable, immutableList, isImmutable } from "../../src/canonical/index.js";
import { manualClock } from "../../src/context/index.js";
import { RunEventSchema, type RunEvent } from "../../src/contracts/index.js";
import { CanonicalJsonError, EventFormatError } from "../../src/errors/index.js";
import { checkEvents, checkStoredBody, preparePayload, stampPayloads, type Stamp } from "../../src/journal/index.js";
import { MemoryRunStore, RunLog } from "../../src/store/index.js";

const base = { v: 1, runId: "r1", seq: 1, at: "2026-01-01T00:00:00.000Z" } as const;

/** What the slow path alone says: the canonical copy, then the schema. */
function reference(event: unknown): "refused" | RunEvent {
  try {
    const parsed = RunEventSchema.safeParse(canonicalCopy(event).copy);
    return parsed.success ? parsed.data : "refused";
  } catch (error) {
    if (error instanceof CanonicalJsonError) return "refused";
    throw error;
  }
}

/** checkEvents refuses it, as the slow path does, and a store given it keeps nothing. */
function expectRefused(make: () => unknown): void {
  expect(reference(make())).toBe("refused");
  expect(() => checkEvents([make() as RunEvent])).toThrow(EventFormatError);
  const store = new MemoryRunStore();
  expect(() => store.append([make() as RunEvent])).toThrow(EventFormatError);
  expect(store.read("r1")).toEqual([]);
}

describe("the log and values that are not plain data", () => {
  it("never keeps an array that shrinks while it is read as a body it cannot read back", () => {
    const make = () => {
      const roles = ["x", "y"];
      Object.defineProperty(roles, 0, {
        get() {
          roles.length = 1;
          return "x";
        },
        enumerable: true,
        configurable: true,
      });
      return { ...base, type: "approval.requested", callId: "c", tool: "t", argsHash: "h", roles };
    };
    expect(reference(make())).toBe("refused");
    // The quick walk gives up at the hole the getter made; the full check then reads the array as
    // it is by then. Either way, what is kept is what a reader gets back (it was "x",null).
    const { events, bodies } = checkEvents([make() as RunEvent]);
    expect(checkStoredBody(bodies[0] as string)).toEqual(events[0]);
    expect(events[0]).toMatchObject({ roles: ["x"] });
    const store = new MemoryRunStore();
    store.append([make() as RunEvent]);
    expect(store.read("r1")).toEqual(events);
  });

  it("refuses such an array in a part of any shape, where canonical JSON copies it", () => {
    const list = [1, 2];
    Object.defineProperty(list, 0, {
      get() {
        list.length = 1;
        return 1;
      },
      enumerable: true,
      configurable: true,
    });
    expect(() => canonicalCopy({ list })).toThrow(CanonicalJsonError);
  });

  it("refuses a required field JSON would not write (not enumerable), whatever other keys the event has", () => {
    const make = () => {
      const event: Record<string, unknown> = { ...base, type: "message", role: "user", extra: 1 };
      Object.defineProperty(event, "content", { value: "hi", enumerable: false });
      return event;
    };
    expectRefused(make);
    const nested = () => {
      const error: Record<string, unknown> = { kind: "threw", extra: 1 };
      Object.defineProperty(error, "message", { value: "m", enumerable: false });
      return { ...base, type: "tool.failed", callId: "c", name: "n", error };
    };
    expectRefused(nested);
  });

  it("refuses what a getter hides by deleting a key the slow path reads first", () => {
    const make = () => ({
      a: 1n,
      ...base,
      type: "message",
      role: "user",
      get content() {
        delete (this as { a?: bigint }).a;
        return "hi";
      },
    });
    expectRefused(make);
  });

  it("registers as immutable no value with a property JSON does not write, so none can be shared as a part", () => {
    const hidden: Record<string, unknown> = { a: "x", kind: "threw" };
    Object.defineProperty(hidden, "message", { value: "m", enumerable: false });
    expect(() => immutable(hidden)).toThrow(/JSON does not write/);
    expect(() => immutable({ kind: "threw", message: "m", [Symbol("s")]: 1 })).toThrow(/JSON does not write/);
    expect(() => immutable({ nested: [hidden] })).toThrow(/JSON does not write/);
    expect(immutable({ list: [1, 2], kind: "threw", message: "m" })).toEqual({ list: [1, 2], kind: "threw", message: "m" });
    // A refusal anywhere in the value freezes and registers none of it (parts checked first).
    const inner = { a: 1 };
    const refused = { inner, later: hidden };
    expect(() => immutable(refused)).toThrow(/JSON does not write/);
    expect([Object.isFrozen(inner), isImmutable(inner), Object.isFrozen(refused)]).toEqual([false, false, false]);
  });

  it("keeps bytes that read back as the event, for an optional field that is not enumerable", () => {
    const event: Record<string, unknown> = { ...base, type: "run.finished", status: "completed", output: "done", steps: 1, usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 }, cost: null };
    Object.defineProperty(event, "error", { value: "hidden", enumerable: false });
    const { events, bodies } = checkEvents([event as RunEvent]);
    expect(bodies[0]).toBe(canonicalJson(event));
    expect(checkStoredBody(bodies[0] as string)).toEqual(events[0]);
    expect(events[0]).not.toHaveProperty("error");
  });

  it("stamps a duration on an llm.finished and on nothing else", () => {
    const stamp: Stamp = { v: 1, runId: "r1", seq: 1, at: "2026-01-01T00:00:00.000Z" };
    const finished = preparePayload({ type: "llm.finished", step: 1, attempt: 1, requestKey: "k", response: { text: "", toolCalls: [], stopReason: "end", usage: null }, cost: null } as never);
    expect(() => stampPayloads([{ stamp, payload: finished }])).toThrow(/durationMs/);
    const message = preparePayload({ type: "message", role: "user", content: "hi" } as never);
    expect(() => stampPayloads([{ stamp: { ...stamp, durationMs: 5 }, payload: message }])).toThrow(/durationMs/);
    const timed = stampPayloads([{ stamp: { ...stamp, durationMs: 5 }, payload: preparePayload({ type: "llm.finished", step: 1, attempt: 1, requestKey: "k", response: { text: "", toolCalls: [], stopReason: "end", usage: null }, cost: null } as never) }]);
    expect(checkStoredBody(timed[0] as string)).toMatchObject({ type: "llm.finished", durationMs: 5 });
  });

  it("takes a payload's type once, as its copy holds it: a getter cannot have one type checked and another stamped", () => {
    const flipping = (first: string, then: string, reads: number, rest: object) => {
      let count = 0;
      return Object.defineProperty({ ...rest }, "type", { enumerable: true, get: () => (++count <= reads ? first : then) });
    };
    const finished = { step: 1, attempt: 1, requestKey: "k", response: { text: "x", toolCalls: [], stopReason: "end", usage: null }, cost: null };
    for (let reads = 1; reads <= 6; reads++) {
      for (const [first, then, rest] of [["llm.finished", "message", finished], ["message", "llm.finished", { role: "user", content: "hi" }]] as const) {
        const store = new MemoryRunStore();
        const log = RunLog.create("r", store, manualClock(Date.UTC(2026, 0, 1), 1));
        let appended: RunEvent | undefined;
        try {
          appended = log.append(flipping(first, then, reads, rest) as never);
        } catch (error) {
          expect(error).toBeInstanceOf(EventFormatError);
          continue;
        }
        expect(store.read("r")).toEqual([appended]);
        expect(checkStoredBody(store.readRaw("r")[0] as string)).toEqual(appended);
      }
    }
  });

  it("shares no conversation part a reader would not get back: a subclass list is refused or made plain, a null-prototype message copied", () => {
    class Conversation extends Array<unknown> {}
    (Conversation.prototype as unknown as { toJSON(): unknown }).toJSON = () => ["forged"];
    expect(() => immutable(Conversation.from([{ role: "user", content: "hi" }]))).toThrow(/only plain arrays/);
    const extra = Object.assign([{ role: "user", content: "hi" }], { extra: "x" });
    expect(() => immutable(extra)).toThrow(/only plain arrays/);
    // JSON.stringify first, so a toJSON the event's list inherited would show in the text.
    for (const messages of [immutableList(Conversation.from([{ content: "hi", role: "user" }])), immutableList([Object.assign(Object.create(null) as object, { content: "hi", role: "user" })])]) {
      expect(Object.getPrototypeOf(messages)).toBe(Array.prototype);
      const store = new MemoryRunStore();
      const event = RunLog.create("r", store, manualClock(Date.UTC(2026, 0, 1), 1)).append({ type: "llm.started", step: 1, attempt: 1, requestKey: "k", request: { model: "m", messages, tools: [] } } as never);
      expect(canonicalJson(JSON.parse(JSON.stringify(event)))).toBe(store.readRaw("r")[0]);
      expect(isDeepStrictEqual(store.read("r")[0], event)).toBe(true);
    }
  });
});
