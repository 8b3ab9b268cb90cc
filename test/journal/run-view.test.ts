import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../src/context/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { fold, initialState, projectView, summarize, summaryOf, viewRun } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { CLOCK_STEP, drive, EPOCH, scenario, scenarioAgent } from "../agent/scenarios.js";

/** Real logs: random scripted runs with tools, faults, approvals and blocked inputs. */
const recordedLog = scenario.map(async (s) => {
  const store = new MemoryRunStore();
  await drive(() => scenarioAgent(s), store, manualClock(EPOCH, CLOCK_STEP), "r", s.messages);
  return store.read("r");
});

describe("the run view and fold", () => {
  it("agree on every prefix of real logs, blocked inputs included (and so does the run listing)", async () => {
    await fc.assert(
      fc.asyncProperty(recordedLog, async (pending) => {
        const events = await pending;
        let incremental = initialState();
        for (let length = 0; length <= events.length; length++) {
          const prefix = events.slice(0, length);
          if (length > 0) incremental = fold([prefix[length - 1] as RunEvent], incremental);
          const state = fold(prefix);
          const view = viewRun(prefix);
          // One reduction: the view of the state resume acts on is the view the assertions read.
          expect(projectView(incremental, prefix)).toEqual(view);
          const messages = prefix.filter((event) => event.type === "message");
          expect(view.turns.map((turn) => turn.input)).toEqual(messages.map((event) => (event.type === "message" ? event.content : "")));
          if (messages.length === 0) expect(view.status).toBe("new");
          else expect(view.status).toBe(state.status);
          if (state.status === "completed" || state.status === "failed") {
            expect(view.output).toBe(state.output);
            expect(view.error).toEqual(state.error);
          }
          expect([view.steps, view.llmCalls, view.cost, view.usage]).toEqual([state.steps, state.llmCalls, state.cost, state.usage]);
          const pendingIds = state.pendingCalls.map((call) => call.callId);
          expect(view.toolCalls.filter((call) => call.status === "pending").map((call) => call.callId)).toEqual(pendingIds);
          // The listing row is the same reduction, from the lifecycle events alone (as SQLite lists it).
          const row = summarize(prefix);
          const full = summaryOf(state);
          expect(row && { ...row, events: 0, updatedAt: "" }).toEqual(full && { ...full, events: 0, updatedAt: "" });
          // Every settled call's outcome is the one the conversation gives the model.
          const settled = new Set(state.messages.flatMap((message) => (message.role === "tool" ? [message.toolCallId] : [])));
          expect(view.toolCalls.filter((call) => call.status !== "pending").map((call) => call.callId).sort()).toEqual([...settled].sort());
        }
      }),
      { numRuns: 60 },
    );
  });

  it("gives a run.finished with no open turn (a log written before blocked inputs were kept) its own turn", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const base = { v: 1 as const, runId: "r", at };
    const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    const events = [
      { ...base, seq: 1, type: "run.started", agent: { name: "a", digest: "d" }, model: { provider: "scripted", model: "m" }, seed: 0, config: null },
      { ...base, seq: 2, type: "message", role: "user", content: "hello" },
      { ...base, seq: 3, type: "run.finished", status: "completed", output: "hi", usage, cost: 0, steps: 1 },
      { ...base, seq: 4, type: "guardrail", direction: "input", action: "block", rule: "r", detail: "d" },
      { ...base, seq: 5, type: "run.finished", status: "failed", output: "", error: { code: "guardrail_blocked", message: "m" }, usage, cost: 0, steps: 1 },
    ] as RunEvent[];
    expect(viewRun(events).turns.map((turn) => [turn.input, turn.status, turn.output])).toEqual([
      ["hello", "completed", "hi"],
      ["", "failed", ""],
    ]);
  });
});
