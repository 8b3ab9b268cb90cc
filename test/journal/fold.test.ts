import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEvent, serializeEvent, fold, initialState } from "../../src/journal/index.js";
import type { ResponseEntry } from "../../src/contracts/index.js";
import { runOnce } from "../helpers.js";

const toolCall = fc.oneof(
  fc.record({ name: fc.constant("echo"), arguments: fc.record({ text: fc.string({ maxLength: 8 }) }) }),
  fc.record({ name: fc.constant("echo"), arguments: fc.constant('{"text":') }),
  fc.record({ name: fc.constant("boom"), arguments: fc.constant({}) }),
  fc.record({ name: fc.constant("nope"), arguments: fc.constant({}) }),
);
const entry: fc.Arbitrary<ResponseEntry> = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 12 }) }) as fc.Arbitrary<ResponseEntry>,
  fc.record({ tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 3 }) }) as fc.Arbitrary<ResponseEntry>,
  fc.record({ error: fc.record({ status: fc.constantFrom(429, 500, 401), message: fc.constant("fault") }) }) as fc.Arbitrary<ResponseEntry>,
);
/** Real logs, written by the agent from random scripts (faults and exhaustion included). */
const recordedLog = fc.array(entry, { minLength: 1, maxLength: 6 }).map(async (responses) => (await runOnce({ responses }, "go", { maxSteps: 4 })).events);

describe("fold", () => {
  it("never throws on any prefix of a valid log, and agrees with the log's counts", async () => {
    await fc.assert(
      fc.asyncProperty(recordedLog, async (pending) => {
        const events = await pending;
        for (let length = 0; length <= events.length; length++) {
          const prefix = events.slice(0, length);
          const state = fold(prefix);
          expect(state.lastSeq).toBe(length);
          expect(state.steps).toBe(prefix.filter((event) => event.type === "llm.finished").length);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("keeps every field of the state from one call to the next, and leaves the state it started from as it was", async () => {
    const events = (await runOnce({ responses: [{ text: "done" }] }, "go")).events;
    const first = fold(events.slice(0, 2));
    const before = { ...first };
    const next = fold(events.slice(2), first);
    expect(Object.keys(next).sort()).toEqual(Object.keys(initialState()).sort());
    expect(Object.keys(first).sort()).toEqual(Object.keys(initialState()).sort());
    expect(first).toStrictEqual(before);
    expect(Object.isFrozen(next)).toBe(true);
  });

  it("is deterministic and incremental: fold(a ++ b) = fold(b, fold(a))", async () => {
    await fc.assert(
      fc.asyncProperty(recordedLog, fc.nat(), async (pending, cut) => {
        const events = await pending;
        const at = cut % (events.length + 1);
        const whole = fold(events);
        // Deterministic: a copy of the log (as read back from a store) folds to the same state.
        expect(fold(structuredClone(events))).toEqual(whole);
        expect(fold(events.slice(at), fold(events.slice(0, at), initialState()))).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it("ends every recorded run settled: nothing pending, one message per tool call", async () => {
    await fc.assert(
      fc.asyncProperty(recordedLog, async (pending) => {
        const events = await pending;
        const state = fold(events);
        expect(["completed", "failed"]).toContain(state.status);
        expect(state.pendingCalls).toEqual([]);
        expect(state.pendingLlm).toBeUndefined();
        const requested = events.filter((event) => event.type === "tool.requested").length;
        expect(state.messages.filter((message) => message.role === "tool")).toHaveLength(requested);
      }),
      { numRuns: 60 },
    );
  });

  it("every recorded event survives serialisation and schema validation unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(recordedLog, async (pending) => {
        for (const event of await pending) expect(parseEvent(serializeEvent(event))).toEqual(event);
      }),
      { numRuns: 40 },
    );
  });

  it("reports a crash between llm.started and its outcome as a pending model call", async () => {
    const { events } = await runOnce({ responses: [{ text: "hi" }] }, "go");
    const cut = events.findIndex((event) => event.type === "llm.started") + 1;
    const state = fold(events.slice(0, cut));
    expect(state.pendingLlm?.type).toBe("llm.started");
    expect(state.status).toBe("running");
  });

  it("reports a crash after tool.started as a started call whose outcome is unknown", async () => {
    const { events } = await runOnce({ responses: [{ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }] }, "go");
    const cut = events.findIndex((event) => event.type === "tool.started") + 1;
    expect(fold(events.slice(0, cut)).pendingCalls).toEqual([
      expect.objectContaining({ callId: "call_1_1", name: "echo", phase: "started", args: { text: "x" } }),
    ]);
  });
});
