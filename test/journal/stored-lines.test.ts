/**
 * StoredLineChecker reads each model call's conversation once, however many later calls repeat
 * it. Its answer for every line must be the full check's: the same event, or a refusal with the
 * same error — for real logs and for logs edited anywhere, including inside the repeated bytes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { checkStoredBody, StoredLineChecker } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, testContext } from "../helpers.js";

const word = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom("é", "a\nb", '"q"', "\\"));
const plan = fc.array(
  fc.oneof(fc.record({ tool_calls: fc.array(fc.record({ name: fc.constant("echo"), arguments: fc.record({ text: word }) }), { minLength: 1, maxLength: 2 }) }), fc.record({ text: word })),
  { minLength: 1, maxLength: 6 },
);

async function logOf(responses: object[]): Promise<string[]> {
  const store = new MemoryRunStore();
  const run = AgentRun.start(scriptedAgent({ responses: [...responses, { text: "end" }] }, { maxSteps: 12 }), { store, context: testContext() });
  await run.send("start");
  await run.send("again");
  return store.readRaw(run.runId);
}

type Outcome = { event: unknown } | { error: string };

function full(line: string): Outcome {
  try {
    return { event: checkStoredBody(line) };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

function checked(checker: StoredLineChecker, line: string): Outcome {
  try {
    return { event: checker.check(line).event };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

/** Edits that keep most of a line: they land inside repeated conversations, at their edges, or in the rest. */
const edit = fc.record({
  line: fc.nat(),
  at: fc.nat(),
  kind: fc.constantFrom("insert", "delete", "replace"),
  text: fc.constantFrom(",", "]", "[", " ", '"', "x", "{}", '{"role":"user","content":"x"}', ',"extra":1', "\\u0041"),
});

describe("StoredLineChecker", () => {
  it("gives every line of a real log the full check's event, sharing the repeated messages", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (responses) => {
        const lines = await logOf(responses);
        const checker = new StoredLineChecker();
        let shortcuts = 0;
        for (const line of lines) {
          const { event, fresh } = checker.check(line);
          expect({ event }).toStrictEqual(full(line));
          if (fresh !== event) shortcuts++;
        }
        // Every model call after the first reads only what its conversation added.
        const calls = lines.filter((line) => line.includes('"type":"llm.started"')).length;
        expect(shortcuts).toBe(calls - 1);
      }),
      { numRuns: 30 },
    );
  });

  it("refuses or accepts an edited log exactly as the full check does, line by line", async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.array(edit, { minLength: 1, maxLength: 3 }), async (responses, edits) => {
        const lines = await logOf(responses);
        for (const change of edits) {
          const index = change.line % lines.length;
          const line = lines[index] as string;
          // Aim most edits at the conversation, where the shortcut works.
          const start = line.indexOf('"messages":[');
          const at = start >= 0 && change.at % 3 !== 0 ? start + 12 + (change.at % Math.max(1, line.length - start - 12)) : change.at % (line.length + 1);
          const cut = change.kind === "insert" ? 0 : Math.min(change.text.length, line.length - at);
          lines[index] = line.slice(0, at) + (change.kind === "delete" ? "" : change.text) + line.slice(at + cut);
        }
        const checker = new StoredLineChecker();
        for (const line of lines) expect(checked(checker, line)).toStrictEqual(full(line));
      }),
      { numRuns: 150 },
    );
  });

  it("refuses a line that adds a bare comma, or anything malformed, right after the repeated messages", async () => {
    const lines = await logOf([{ tool_calls: [{ name: "echo", arguments: { text: "a" } }] }]);
    const started = lines.flatMap((line, index) => (line.includes('"type":"llm.started"') ? [index] : []));
    const [first, second] = started as [number, number];
    const previous = JSON.stringify(JSON.parse(lines[first] as string).request.messages).slice(1, -1);
    const at = (lines[second] as string).indexOf(previous) + previous.length;
    expect(at).toBeGreaterThan(previous.length);
    for (const inserted of [",", ",]", ", ", "{}", "]"]) {
      const edited = [...lines];
      const line = edited[second] as string;
      // Where the earlier conversation ends: "," then the new messages, or "]" when there are none.
      // ",]": the earlier messages, a comma, and the array closed — the new messages cut out.
      const end = line.indexOf('"messages":[') + 11 + JSON.stringify(JSON.parse(line).request.messages).length;
      edited[second] = inserted === ",]" ? `${line.slice(0, at)},${line.slice(end - 1)}` : `${line.slice(0, at)}${inserted}${line.slice(at)}`;
      const checker = new StoredLineChecker();
      const outcomes = edited.map((text) => checked(checker, text));
      expect(outcomes).toStrictEqual(edited.map(full));
      expect(outcomes[second]).toHaveProperty("error");
    }
  });

  it("does not take a conversation from a line whose messages the schema changed", async () => {
    const lines = await logOf([{ tool_calls: [{ name: "echo", arguments: { text: "a" } }] }, { tool_calls: [{ name: "echo", arguments: { text: "b" } }] }]);
    const started = lines.flatMap((line, index) => (line.includes('"type":"llm.started"') ? [index] : []));
    // A message with a key the schema drops (in canonical position): the event holds the message without it.
    for (const index of started) lines[index] = (lines[index] as string).replace('{"content":"start","role":"user"}', '{"content":"start","role":"user","zzz":1}');
    expect(lines.filter((line) => line.includes('"zzz":1'))).toHaveLength(started.length);
    const checker = new StoredLineChecker();
    for (const line of lines) expect(checked(checker, line)).toStrictEqual(full(line));
  });
});
