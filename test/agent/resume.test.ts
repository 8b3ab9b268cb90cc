import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock } from "../../src/context/index.js";
import type { RunEvent, ResponseEntry } from "../../src/contracts/index.js";
import { fold } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { echoTool, scriptedAgent } from "../helpers.js";
import { BoundaryStore, CLOCK_STEP, drive, EPOCH, scenario, scenarioAgent } from "./scenarios.js";

const sendEmail = defineTool({
  name: "send_email",
  description: "Not idempotent: sending twice sends two emails.",
  input: z.object({ to: z.string() }),
  run: () => "sent",
});

const entry: fc.Arbitrary<ResponseEntry> = fc.oneof(
  fc.record({ text: fc.constantFrom("done", "ok") }) as fc.Arbitrary<ResponseEntry>,
  fc.record({
    tool_calls: fc.array(
      fc.oneof(
        fc.record({ name: fc.constant("echo"), arguments: fc.record({ text: fc.constantFrom("a", "b") }) }),
        fc.record({ name: fc.constant("send_email"), arguments: fc.record({ to: fc.constantFrom("x@y.z") }) }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }) as fc.Arbitrary<ResponseEntry>,
);

/** The clock a resumed process would have: it goes on from the last logged time, stepping as before. */
function clockAfter(prefix: readonly string[]) {
  const last = prefix.at(-1);
  return manualClock(last ? Date.parse((JSON.parse(last) as RunEvent).at) + CLOCK_STEP : EPOCH, CLOCK_STEP);
}

describe("resume after a crash", () => {
  it("gives the uninterrupted run's log byte for byte, at every crash point (tools, faults, approvals, blocked inputs, small maxSteps)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const original = new BoundaryStore();
        await drive(() => scenarioAgent(s), original, manualClock(EPOCH, CLOCK_STEP), "r", s.messages);
        const recorded = original.readRaw("r");
        for (const cut of original.boundaries) {
          const store = new MemoryRunStore();
          const prefix = recorded.slice(0, cut);
          store.appendRaw(prefix);
          await drive(() => scenarioAgent(s), store, clockAfter(prefix), "r", s.messages);
          expect(store.readRaw("r"), `resumed after seq ${cut}`).toEqual(recorded);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("never re-asks the model for an answered step and never re-runs a non-idempotent call", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 6 }), async (responses, maxSteps) => {
        const script = { responses: [...responses, { text: "final" }] };
        const agent = () => scriptedAgent(script, { tools: [echoTool, sendEmail], maxSteps });
        const context = () => createRunContext({ clock: manualClock(EPOCH, 1), ids: { runId: () => "r" } });
        const original = new BoundaryStore();
        await AgentRun.start(agent(), { store: original, context: context() }).send("go");
        const recorded = original.read("r");

        // Every append boundary after the first message: before it there is no turn to resume.
        for (const cut of original.boundaries.filter((seq) => seq >= 2)) {
          const before = recorded.slice(0, cut);
          const store = new MemoryRunStore();
          store.append(before);
          const settled = new Set(before.flatMap((event) => (event.type === "tool.finished" || event.type === "tool.failed" ? [event.callId] : [])));
          const inFlight = before.flatMap((event) => (event.type === "tool.started" && !settled.has(event.callId) ? [event] : []));
          const outcome = await AgentRun.open(agent(), "r", { store, context: context() }).resume();
          const after = store.read("r", cut + 1);
          // A non-idempotent call in flight makes the run wait for a person; otherwise it ends as the original did.
          const waitsForPerson = inFlight.some((call) => call.name === "send_email");
          expect(outcome.status).toBe(
            waitsForPerson ? "waiting" : recorded.at(-1)?.type === "run.finished" ? (recorded.at(-1) as { status: string }).status : "",
          );
          if (waitsForPerson) {
            expect(outcome.pending.every((item) => item.unknownOutcome === true)).toBe(true);
            expect(after.at(-1)?.type).toBe("run.paused");
          }
          // The model is asked exactly what the original run asked after this point; a call in
          // flight at the crash is made again under its logged marker, not a new one.
          const asked = (events: readonly RunEvent[]) => events.filter((event) => event.type === "llm.started").length;
          if (!waitsForPerson) expect(asked(after)).toBe(asked(recorded.slice(cut)));
          else expect(asked(after)).toBe(0);
          expect(fold(store.read("r")).pendingLlm).toBeUndefined();
          for (const call of inFlight) {
            const next = after.find((event) => "callId" in event && event.callId === call.callId);
            // A started, non-idempotent call is reported, never silently run again; an idempotent one runs again.
            expect(next?.type).toBe(call.name === "send_email" ? "tool.unknown_outcome" : "tool.finished");
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
