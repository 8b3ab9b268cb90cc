/**
 * fold extends the lists it made itself in place (a long log folds in linear time); a state
 * handed to it, or returned by an earlier call, is never changed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { fold } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, testContext } from "../helpers.js";

describe("fold in place", () => {
  it("folding the rest of a log onto an earlier state leaves that state as it was, and equals folding it all", async () => {
    const store = new MemoryRunStore();
    const calls = (step: number) => Array.from({ length: 3 }, (_, n) => ({ id: `c${step}_${n}`, name: "echo", arguments: { text: `t${n}` } }));
    await AgentRun.start(scriptedAgent({ responses: [{ tool_calls: calls(1) }, { tool_calls: calls(2) }, { text: "done" }] }), { store, context: testContext(), runId: "f" }).send("go");
    const events = store.read("f");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: events.length }), fc.integer({ min: 0, max: events.length }), (a, b) => {
        const [cut, next] = a <= b ? [a, b] : [b, a];
        const first = fold(events.slice(0, cut));
        const before = JSON.stringify(first);
        const second = fold(events.slice(cut, next), first);
        const third = fold(events.slice(next), second);
        expect(JSON.stringify(first)).toBe(before);
        expect(JSON.stringify(second)).toBe(JSON.stringify(fold(events.slice(0, next))));
        expect(JSON.stringify(third)).toBe(JSON.stringify(fold(events)));
      }),
      { numRuns: 200 },
    );
  });

  it("folding one event at a time changes no state handed out before, and ends where folding the batch ends", async () => {
    const store = new MemoryRunStore();
    const calls = (step: number) => Array.from({ length: 3 }, (_, n) => ({ id: `c${step}_${n}`, name: "echo", arguments: { text: `t${n}` } }));
    await AgentRun.start(scriptedAgent({ responses: [{ tool_calls: calls(1) }, { tool_calls: calls(2) }, { text: "done" }] }), { store, context: testContext(), runId: "g" }).send("go");
    const events = store.read("g");
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: events.length }), (sizes) => {
        // The log cut into chunks of random sizes, each folded onto the state the last returned.
        const states = [fold([])];
        const seen = [JSON.stringify(states[0])];
        let at = 0;
        for (let index = 0; at < events.length; index++) {
          const size = sizes[index % sizes.length] as number;
          const next = fold(events.slice(at, at + size), states[states.length - 1]);
          at += size;
          expect(Object.isFrozen(next)).toBe(true);
          expect(JSON.stringify(next)).toBe(JSON.stringify(fold(events.slice(0, at))));
          states.push(next);
          seen.push(JSON.stringify(next));
        }
        states.forEach((state, index) => expect(JSON.stringify(state)).toBe(seen[index]));
        expect(seen[seen.length - 1]).toBe(JSON.stringify(fold(events)));
      }),
      { numRuns: 100 },
    );
  });
});
