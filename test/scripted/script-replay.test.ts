/**
 * The scripted model finds its place in the script from the conversation alone. These specs
 * play conversations the way the agent loop makes its model calls (one call index per call,
 * attempts counted per request) and check that every call gets the entry the script wrote for it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProviderError, ScriptExhaustedError } from "../../src/errors/index.js";
import type { LlmRequest, Message, ResponseEntry, ScriptInput } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";

const request = (messages: Message[]): LlmRequest => ({ model: "scripted", messages, tools: [] });

/** One user turn: `faults` failed attempts, then an answer, or none when the turn ran out of attempts. */
interface Turn {
  faults: number;
  answered: boolean;
  /** The turn first asks for a tool, whose result comes back before its faults and answer. */
  toolStep?: boolean;
}

const fault = (turn: number, attempt: number): ResponseEntry => ({ error: { status: 500, message: `fault ${turn}.${attempt}` } });

/** The script a test author writes for these turns: each turn's faults, then its answer. */
function scriptFor(turns: readonly Turn[], extra: ResponseEntry[] = []): ResponseEntry[] {
  return [
    ...turns.flatMap((turn, index) => [
      ...(turn.toolStep ? [{ text: `tool ${index + 1}`, tool_calls: [{ name: "lookup", arguments: {} }] }] : []),
      ...Array.from({ length: turn.faults }, (_, attempt) => fault(index + 1, attempt + 1)),
      ...(turn.answered ? [{ text: `answer ${index + 1}` }] : []),
    ]),
    ...extra,
  ];
}

/**
 * Plays the turns against a fresh model per call (as a resumed run would build it) and returns,
 * per call, what it got: the answer's text or the fault's message.
 */
async function play(turns: readonly Turn[], responses: ResponseEntry[] | ScriptInput, freshModelPerCall = true) {
  const script: ScriptInput = Array.isArray(responses) ? { responses } : responses;
  const shared = new ScriptedModel(script);
  const messages: Message[] = [];
  const got: string[] = [];
  let callIndex = 0;
  for (const [index, turn] of turns.entries()) {
    messages.push({ role: "user", content: `turn ${index + 1}` });
    if (turn.toolStep) {
      const model = freshModelPerCall ? new ScriptedModel(script) : shared;
      const response = await model.generate(request([...messages]), { callIndex, attempt: 1 });
      callIndex++;
      got.push(response.text);
      messages.push({ role: "assistant", content: response.text, toolCalls: response.toolCalls });
      for (const call of response.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: "found", isError: false });
    }
    const attempts = turn.faults + (turn.answered ? 1 : 0);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const model = freshModelPerCall ? new ScriptedModel(script) : shared;
      try {
        const response = await model.generate(request([...messages]), { callIndex, attempt });
        got.push(response.text);
        messages.push({ role: "assistant", content: response.text, toolCalls: [] });
      } catch (error) {
        if (!(error instanceof ProviderError || error instanceof ScriptExhaustedError)) throw error;
        got.push(error instanceof ScriptExhaustedError ? "exhausted" : error.message);
      } finally {
        callIndex++;
      }
    }
  }
  return got;
}

const expectedCalls = (turns: readonly Turn[]) =>
  turns.flatMap((turn, index) => [
    ...(turn.toolStep ? [`tool ${index + 1}`] : []),
    ...Array.from({ length: turn.faults }, (_, attempt) => `fault ${index + 1}.${attempt + 1}`),
    ...(turn.answered ? [`answer ${index + 1}`] : []),
  ]);

/** Turns as a run makes them: an answered turn may have failed attempts first; a failed turn has at least one. */
const turnArb: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ faults: fc.integer({ min: 0, max: 3 }), answered: fc.constant(true) }),
  fc.record({ faults: fc.integer({ min: 1, max: 3 }), answered: fc.constant(false) }),
);

describe("ScriptedModel replays its script over the conversation", () => {
  it("gives every call of every turn the entry written for it, failed turns included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 6 }), async (turns) => {
        expect(await play(turns, scriptFor(turns))).toEqual(expectedCalls(turns));
        expect(await play(turns, scriptFor(turns), false)).toEqual(expectedCalls(turns));
      }),
      { numRuns: 150 },
    );
  });

  it("gives every call its entry when turns take a tool step first, failed turns included", async () => {
    const withTool = fc.tuple(turnArb, fc.boolean()).map(([turn, toolStep]) => ({ ...turn, toolStep }));
    await fc.assert(
      fc.asyncProperty(fc.array(withTool, { minLength: 1, maxLength: 5 }), async (turns) => {
        expect(await play(turns, scriptFor(turns))).toEqual(expectedCalls(turns));
      }),
      { numRuns: 150 },
    );
    // Issue 9's case: [tool_call, 500, 500, 500, answer] with the turn failing after its tool step.
    const failedAfterTool = [
      { faults: 3, answered: false, toolStep: true },
      { faults: 0, answered: true },
    ];
    expect(await play(failedAfterTool, scriptFor(failedAfterTool))).toEqual(["tool 1", "fault 1.1", "fault 1.2", "fault 1.3", "answer 2"]);
  });

  it("gives every call the entry written for it when the script is rules keyed on the question", async () => {
    // Per turn, a rule for its faults (as many times as it has faults) and one for its answer.
    const rulesFor = (turns: readonly Turn[]): ScriptInput => ({
      rules: turns.flatMap((turn, index) => [
        ...(turn.faults > 0 ? [{ when: { user_contains: `turn ${index + 1}` }, respond: { error: { status: 500, message: `fault ${index + 1}` } }, times: turn.faults }] : []),
        ...(turn.answered ? [{ when: { user_contains: `turn ${index + 1}` }, respond: { text: `answer ${index + 1}` } }] : []),
      ]),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 6 }), async (turns) => {
        const expected = expectedCalls(turns).map((call) => call.replace(/^(fault \d+)\.\d+$/, "$1"));
        expect(await play(turns, rulesFor(turns))).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("replays a failed turn's rule faults against the conversation as it stood in that turn", async () => {
    const script: ScriptInput = {
      rules: [{ when: { user_contains: "turn 2" }, respond: { error: { status: 500, message: "fault by the rule" } }, times: 1 }],
      responses: [fault(1, 1), { text: "answer 2" }],
    };
    const turns = [
      { faults: 1, answered: false },
      { faults: 1, answered: true },
    ];
    expect(await play(turns, script)).toEqual(["fault 1.1", "fault by the rule", "answer 2"]);
  });

  it("replays a later failed turn's rule fault at the step it was met", async () => {
    const script: ScriptInput = {
      rules: [{ when: { step: 2 }, respond: { error: { status: 500, message: "fault at step 2" } }, times: 1 }],
      responses: [{ text: "answer 1" }, { text: "answer 3" }],
    };
    const turns = [
      { faults: 0, answered: true },
      { faults: 1, answered: false },
      { faults: 0, answered: true },
    ];
    expect(await play(turns, script)).toEqual(["answer 1", "fault at step 2", "answer 3"]);
  });

  it("counts an answer given by a rule as one model call when it accounts for a later failed turn", async () => {
    const script: ScriptInput = {
      rules: [{ when: { user_contains: "turn 1" }, respond: { text: "answer 1 by the rule" } }],
      responses: [fault(2, 1), fault(3, 1), { text: "answer 3" }],
    };
    const turns = [
      { faults: 0, answered: true },
      { faults: 1, answered: false },
      { faults: 1, answered: true },
    ];
    expect(await play(turns, script)).toEqual(["answer 1 by the rule", "fault 2.1", "fault 3.1", "answer 3"]);
  });

  it("after a turn that ran the script out, tells the next turn the script is exhausted", async () => {
    const turns = [
      { faults: 2, answered: false },
      { faults: 0, answered: true },
    ];
    expect(await play(turns, [fault(1, 1)])).toEqual(["fault 1.1", "exhausted", "exhausted"]);
  });

  it("a turn that failed once (a fault it does not retry) leaves the next fault to the next turn", async () => {
    const turns = [
      { faults: 1, answered: false },
      { faults: 1, answered: true },
    ];
    expect(await play(turns, scriptFor(turns))).toEqual(["fault 1.1", "fault 2.1", "answer 2"]);
  });

  it("a failed turn after an answered one takes only its own faults", async () => {
    const turns = [
      { faults: 1, answered: false },
      { faults: 0, answered: true },
      { faults: 1, answered: false },
      { faults: 1, answered: true },
    ];
    expect(await play(turns, scriptFor(turns))).toEqual(["fault 1.1", "answer 2", "fault 3.1", "fault 4.1", "answer 4"]);
  });

  it("refuses, as exhausted, a conversation with more answers than the script holds", async () => {
    const model = new ScriptedModel({ responses: [{ text: "only" }] });
    const messages: Message[] = [
      { role: "user", content: "a" },
      { role: "assistant", content: "only", toolCalls: [] },
      { role: "user", content: "b" },
      { role: "assistant", content: "invented", toolCalls: [] },
      { role: "user", content: "c" },
    ];
    await expect(model.generate(request(messages), { callIndex: 2, attempt: 1 })).rejects.toThrow(ScriptExhaustedError);
  });

  it("replays a rule against the conversation as it stood when the rule answered", async () => {
    const model = new ScriptedModel({
      rules: [{ when: { user_contains: "second" }, respond: { text: "by the rule" }, times: 1 }],
      responses: [{ text: "first answer" }, { text: "fallback" }],
    });
    const messages: Message[] = [
      { role: "user", content: "first question" },
      { role: "assistant", content: "first answer", toolCalls: [] },
      { role: "user", content: "second question" },
    ];
    expect((await model.generate(request(messages), { callIndex: 1, attempt: 1 })).text).toBe("by the rule");
  });

  it("counts the ordered responses a run reached", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    expect(model.unusedResponses).toBe(3);
    await model.generate(request([{ role: "user", content: "a" }]), { callIndex: 0, attempt: 1 });
    expect(model.unusedResponses).toBe(2);
    expect(model.calls).toBe(1);
    await model.generate(
      request([
        { role: "user", content: "a" },
        { role: "assistant", content: "one", toolCalls: [] },
        { role: "user", content: "b" },
      ]),
      { callIndex: 1, attempt: 1 },
    );
    expect(model.unusedResponses).toBe(1);
    expect(model.calls).toBe(2);
  });
});
