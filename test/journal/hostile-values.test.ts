/**
 * Events whose properties do more than hold data: getters with side effects, keys JSON never
 * writes, arrays that change while they are read. Whatever such an event is, the log either
 * refuses it (EventFormatError) or keeps bytes that read back as the event it returned.
 */
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, immutable } from "../../src/canonical/index.js";
import { RunEventSchema, type RunEvent } from "../../src/contracts/index.js";
import { CanonicalJsonError, EventFormatError } from "../../src/errors/index.js";
import { checkEvents, checkStoredBody, preparePayload, stampPayloads, type Stamp } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";

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
});
