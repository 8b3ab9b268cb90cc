/** The listing row of a run (`retrace runs`): a projection of the fold, from its lifecycle events. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/index.js";
import { SUMMARY_EVENT_TYPES, fold, summarize, summaryOf } from "../../src/journal/index.js";
import {
  eventsOf,
  guardrailFired,
  llmFinished,
  paused,
  resumed,
  retrievalMade,
  runFinished,
  runStarted,
  toolFinished,
  toolRequested,
  usage,
  userMessage,
} from "./events.js";

describe("summarize", () => {
  it("starts a row at run.started: running, nothing counted yet", () => {
    const [started] = eventsOf([runStarted("support-bot", { runId: "run_parent", callId: "c1" })]);
    expect(summarize([started as RunEvent])).toEqual({
      runId: "run_1",
      agent: "support-bot",
      status: "running",
      startedAt: started?.at,
      updatedAt: started?.at,
      events: 1,
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      cost: 0,
      output: "",
      parentRunId: "run_parent",
    });
    expect(summarize(eventsOf([runStarted()]))?.parentRunId).toBeUndefined();
  });

  it("has no row for a log without run.started", () => {
    expect(summarize([])).toBeUndefined();
    expect(summarize(eventsOf([userMessage("hi"), runFinished("completed", "x")]))).toBeUndefined();
    expect(summaryOf(fold(eventsOf([userMessage("hi")])))).toBeUndefined();
  });

  it("follows the status: waiting on run.paused, running again on run.resumed or a new message", () => {
    const statuses = (payloads: Parameters<typeof eventsOf>[0]) => {
      const events = eventsOf(payloads);
      return events.map((_, index) => summarize(events.slice(0, index + 1))?.status);
    };
    expect(statuses([runStarted(), userMessage("go"), paused([]), resumed(), runFinished("completed", "ok"), userMessage("more"), paused([])])).toEqual([
      "running",
      "running",
      "waiting",
      "running",
      "completed",
      "running",
      "waiting",
    ]);
  });

  it("takes output, usage, cost and steps from the last run.finished, and the time and seq of the last event", () => {
    const events = eventsOf([
      runStarted(),
      userMessage("go"),
      runFinished("completed", "first", { usage: usage(1, 1, 0), cost: 0.5, steps: 1 }),
      userMessage("again"),
      paused([]),
      runFinished("completed", "the answer", { usage: usage(7, 3, 1), cost: null, steps: 4 }),
    ]);
    expect(summarize(events)).toMatchObject({
      status: "completed",
      output: "the answer",
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 1 },
      cost: null,
      steps: 4,
      startedAt: events[0]?.at,
      updatedAt: events[5]?.at,
      events: 6,
    });
    expect(summarize(events.slice(0, 3))).toMatchObject({ output: "first", cost: 0.5, steps: 1 });
  });

  it("needs only the lifecycle events: the SQLite store lists runs from them alone", () => {
    expect([...SUMMARY_EVENT_TYPES].sort()).toEqual(["message", "run.finished", "run.paused", "run.resumed", "run.started"]);
    const others = [toolRequested("c1"), toolFinished("c1", "x"), llmFinished("x"), guardrailFired(), retrievalMade()];
    const lifecycle = [userMessage("go"), paused([]), resumed(), runFinished("completed", "ok")];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...others, ...lifecycle), { maxLength: 12 }), (middle) => {
        const events = eventsOf([runStarted(), ...middle]);
        const full = summaryOf(fold(events));
        const fromLifecycle = summarize(events);
        // The store sets the time and seq of a row from its last event of any kind.
        expect(full && { ...full, events: 0, updatedAt: "" }).toEqual(fromLifecycle && { ...fromLifecycle, events: 0, updatedAt: "" });
        expect(full?.events).toBe(events.length);
        expect(full?.updatedAt).toBe(events[events.length - 1]?.at);
        // Alone, it gives the seq and time of the last lifecycle event.
        const lastLifecycle = [...events].reverse().find((event) => SUMMARY_EVENT_TYPES.has(event.type));
        expect([fromLifecycle?.events, fromLifecycle?.updatedAt]).toEqual([lastLifecycle?.seq, lastLifecycle?.at]);
      }),
    );
  });
});
