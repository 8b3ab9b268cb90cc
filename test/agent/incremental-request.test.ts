/**
 * A step's request key and logged request are made from the conversation's messages, whose
 * canonical text, redacted form and schema check are remembered (they are immutable once
 * folded). Whatever the conversation, what a step logs must equal what a walk from scratch of
 * the same request gives — the cache may only save work, never change a byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { canonicalJson } from "../../src/canonical/index.js";
import { identityOf, type EventOf, type LanguageModel, type RunEvent } from "../../src/contracts/index.js";
import { serializeEvent } from "../../src/journal/index.js";
import { requestKey } from "../../src/keys/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { eventRedactor } from "../../src/redaction/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, testContext } from "../helpers.js";

const SECRET = "sk-test-abcdefghijklmnopqrstuvwxyz0123";
const word = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("héllo", "line\nbreak", '"quoted"', SECRET, "Bearer abc.def.ghi", "\u2028"));
const step = fc.oneof(
  fc.record({ tool_calls: fc.array(fc.record({ name: fc.constantFrom("echo", "boom"), arguments: fc.record({ text: word }) }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ text: word }),
);
const turns = fc.array(fc.record({ input: word, steps: fc.array(step, { maxLength: 4 }) }), { minLength: 1, maxLength: 3 });

/** What the request of an `llm.started` is when built from plain objects (nothing registered, nothing remembered). */
function fromScratch(event: EventOf<"llm.started">, model: LanguageModel) {
  const plain = JSON.parse(JSON.stringify(event)) as EventOf<"llm.started">;
  return { key: requestKey(identityOf(model), plain.request), line: serializeEvent(plain) };
}

describe("the incremental request of a step", () => {
  it("has the key and the logged bytes a from-scratch build gives, for random conversations", async () => {
    await fc.assert(
      fc.asyncProperty(turns, async (plan) => {
        // Each turn ends with a text answer, so the run waits for the next input.
        const responses = plan.flatMap((turn) => [...turn.steps.filter((entry) => "tool_calls" in entry), { text: "done" }]);
        const model = new ScriptedModel({ responses });
        const store = new MemoryRunStore();
        const run = AgentRun.start(scriptedAgent({ responses }, { model, maxSteps: 16, redaction: { secrets: [SECRET] } }), { store, context: testContext() });
        for (const turn of plan) await run.send(turn.input);
        const lines = store.readRaw(run.runId);
        const events: readonly RunEvent[] = run.log.events;
        for (const [index, event] of events.entries()) {
          if (event.type !== "llm.started") continue;
          const expected = fromScratch(event, model);
          expect(event.requestKey).toBe(expected.key);
          expect(lines[index]).toBe(expected.line);
          // The logged conversation is the redacted one, as redacting it from scratch gives.
          const redact = eventRedactor({ secrets: [SECRET] });
          expect(canonicalJson(event.request.messages)).toBe(canonicalJson(redact({ type: "llm.started", messages: JSON.parse(JSON.stringify(event.request.messages)) as unknown }).messages));
          expect(lines[index]).not.toContain(SECRET);
        }
        // A process that opens the log later folds the same conversation, and would send the same next request.
        const reopened = AgentRun.open(scriptedAgent({ responses }, { model, redaction: { secrets: [SECRET] } }), run.runId, { store, context: testContext() });
        expect(canonicalJson(reopened.log.state.messages)).toBe(canonicalJson(run.log.state.messages));
      }),
      { numRuns: 40 },
    );
  });

  it("a model that tries to edit a message of the conversation is refused (a TypeError); the log and the keys keep the true conversation", async () => {
    const scripted = new ScriptedModel({ responses: [{ tool_calls: [{ name: "echo", arguments: { text: "one" } }] }, { text: "done" }] });
    let refused = 0;
    const meddling: LanguageModel = {
      provider: scripted.provider,
      model: scripted.model,
      identity: identityOf(scripted),
      async generate(request, options) {
        const first = request.messages[0] as { content: string };
        try {
          first.content = "rewritten";
        } catch (error) {
          if (error instanceof TypeError) refused++;
        }
        return scripted.generate(request, options);
      },
    };
    const store = new MemoryRunStore();
    const run = AgentRun.start(scriptedAgent({ responses: [] }, { model: meddling, maxRetries: 0 }), { store, context: testContext() });
    await run.send("hello");
    expect(refused).toBe(2);
    const started = run.log.events.filter((event): event is EventOf<"llm.started"> => event.type === "llm.started");
    expect(started.map((event) => event.request.messages[0])).toStrictEqual([
      { role: "user", content: "hello" },
      { role: "user", content: "hello" },
    ]);
    for (const event of started) expect(event.requestKey).toBe(fromScratch(event, meddling).key);
  });
});
