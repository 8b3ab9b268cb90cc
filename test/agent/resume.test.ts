import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock } from "../../src/context/index.js";
import type { EventOf, RunEvent, ResponseEntry } from "../../src/contracts/index.js";
import { fold } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { echoTool, scriptedAgent } from "../helpers.js";
import { attemptsOf, resumeEquivalent } from "../durability/equivalence.js";
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

/**
 * The clock a resumed process would have: it goes on from the last logged time, stepping as
 * before. When the crash fell during a model call, the resume first closes that attempt and
 * asks again (two clock reads the uninterrupted run did not make); this clock lets them take no
 * time, at the instant of the interrupted marker, so everything after keeps the uninterrupted
 * run's times — tool results and approval deadlines hold times — and the comparison can stay
 * byte for byte. The crash harness checks the same with real clocks, times left out.
 */
function clockAfter(prefix: readonly string[]) {
  const last = prefix.at(-1);
  if (!last) return manualClock(EPOCH, CLOCK_STEP);
  const event = JSON.parse(last) as RunEvent;
  const at = Date.parse(event.at);
  if (event.type !== "llm.started") return manualClock(at + CLOCK_STEP, CLOCK_STEP);
  const inner = manualClock(at + CLOCK_STEP, CLOCK_STEP);
  let still = 2;
  return { now: () => (still-- > 0 ? at : inner.now()), sleep: (ms: number) => inner.sleep(ms) };
}

describe("resume after a crash", () => {
  it("gives the uninterrupted run's log byte for byte once the interrupted attempts are taken out, at every crash point (tools, faults, approvals, blocked inputs, small maxSteps)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const original = new BoundaryStore();
        await drive(() => scenarioAgent(s), original, manualClock(EPOCH, CLOCK_STEP), "r", s.messages);
        const recorded = original.readRaw("r");
        // The equivalence is the identity on a log without crashes (and re-serialises as stored).
        expect(resumeEquivalent(recorded)).toEqual(recorded);
        for (const cut of original.boundaries) {
          const store = new MemoryRunStore();
          const prefix = recorded.slice(0, cut);
          store.appendRaw(prefix);
          await drive(() => scenarioAgent(s), store, clockAfter(prefix), "r", s.messages);
          const resumed = store.readRaw("r");
          // What the killed process wrote is kept as it was.
          expect(resumed.slice(0, cut)).toEqual(prefix);
          expect(resumeEquivalent(resumed), `resumed after seq ${cut}`).toEqual(recorded);
          // A cut during a model call: that attempt stays, closed, and the call is asked again as the next attempt.
          const pending = (JSON.parse(prefix.at(-1) ?? "{}") as RunEvent).type === "llm.started";
          expect(resumed.length, `resumed after seq ${cut}`).toBe(recorded.length + (pending ? 2 : 0));
          if (!pending) continue;
          // Killed again during the re-ask: two interrupted attempts, still the same run once both are taken out.
          const again = new MemoryRunStore();
          const second = resumed.slice(0, cut + 2);
          again.appendRaw(second);
          await drive(() => scenarioAgent(s), again, clockAfter(second), "r", s.messages);
          const { step, attempt } = JSON.parse(prefix.at(-1) as string) as EventOf<"llm.started">;
          expect(attemptsOf(again.readRaw("r").slice(cut - 1, cut + 4))).toEqual([`${step}/${attempt}`, `${step}/${attempt + 1}`, `${step}/${attempt + 2}`]);
          expect(resumeEquivalent(again.readRaw("r")), `killed again after seq ${cut + 2}`).toEqual(recorded);
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
          // flight at the crash is closed and asked again as the next attempt of its step.
          const asked = (events: readonly RunEvent[]) => events.filter((event) => event.type === "llm.started").length;
          const interrupted = before.at(-1)?.type === "llm.started" ? (before.at(-1) as EventOf<"llm.started">) : undefined;
          if (!waitsForPerson) expect(asked(after)).toBe(asked(recorded.slice(cut)) + (interrupted ? 1 : 0));
          else expect(asked(after)).toBe(0);
          if (interrupted) {
            expect(after[0]).toMatchObject({ type: "llm.interrupted", step: interrupted.step, attempt: interrupted.attempt });
            expect(attemptsOf(after)[0]).toBe(`${interrupted.step}/${interrupted.attempt + 1}`);
          }
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
