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

/** Prefixes a crash can leave: appends are atomic, and each append reads the stepping clock once. */
function crashPoints(events: readonly RunEvent[]): number[] {
  const points: number[] = [];
  for (let i = 1; i < events.length; i++) if (events[i]?.at !== events[i - 1]?.at) points.push(i);
  return points;
}

describe("resume after a crash", () => {
  it("never re-asks the model for an answered step and never re-runs a non-idempotent call", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), async (responses) => {
        const script = { responses: [...responses, { text: "final" }] };
        const agent = () => scriptedAgent(script, { tools: [echoTool, sendEmail], maxSteps: 6 });
        const context = () => createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), ids: { runId: () => "r" } });
        const original = new MemoryRunStore();
        await AgentRun.start(agent(), { store: original, context: context() }).send("go");
        const recorded = original.read("r");

        for (const cut of crashPoints(recorded)) {
          const before = recorded.slice(0, cut);
          const store = new MemoryRunStore();
          store.append(before);
          const settled = new Set(before.flatMap((event) => (event.type === "tool.finished" || event.type === "tool.failed" ? [event.callId] : [])));
          const inFlight = before.flatMap((event) => (event.type === "tool.started" && !settled.has(event.callId) ? [event] : []));
          const outcome = await AgentRun.open(agent(), "r", { store, context: context() }).resume();
          const after = store.read("r", cut + 1);
          expect(outcome.status).toBe(recorded.at(-1)?.type === "run.finished" ? (recorded.at(-1) as { status: string }).status : "");
          // The model is asked exactly what the original run asked after this point — plus the one
          // call that was in flight at the crash, whose answer never reached the log.
          const asked = (events: readonly RunEvent[]) => events.filter((event) => event.type === "llm.started").length;
          const unanswered = fold(before).pendingLlm ? 1 : 0;
          expect(asked(after)).toBe(asked(recorded.slice(cut)) + unanswered);
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
