/**
 * Streamed text reaches a terminal before the event that records it, so it is scrubbed as the
 * log is, even when a secret arrives split across deltas.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest } from "../../src/contracts/index.js";
import { createRedactor, REDACTION, scrubbedStream } from "../../src/redaction/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { testContext } from "../helpers.js";

const CANARY = "canary-5f3a9c0e7b21d864";
const OPENAI_LOOKING = "sk-proj-AbCdEf0123456789GhIjKl";

/** Cuts a text into pieces at the given points. */
function split(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

function streamed(pieces: readonly string[], settings: Parameters<typeof scrubbedStream>[0]): string[] {
  const out: string[] = [];
  const stream = scrubbedStream(settings, (text) => out.push(text));
  for (const piece of pieces) stream.push(piece);
  stream.end();
  return out;
}

describe("scrubbedStream", () => {
  it("never passes on a known secret or credential-looking text, however the text is split", () => {
    const secret = fc.stringMatching(/^[0-9a-f]{8,24}$/);
    fc.assert(
      fc.property(secret, fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 12 }), (key, words, points) => {
        const text = words.join(` ${key} `) + ` ${key} and ${OPENAI_LOOKING}.`;
        const out = streamed(split(text, points), { secrets: [key] });
        const joined = out.join("");
        expect(joined).not.toContain(key);
        expect(joined).not.toContain(OPENAI_LOOKING.slice(0, 12));
        expect(joined).toContain(REDACTION);
      }),
      { numRuns: 300 },
    );
  });

  it("passes on exactly the log's redaction of the whole text, for known values", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", " ", CANARY, "canary-", "5f3a", "\n"), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 }), (parts, points) => {
        const text = parts.join("");
        const settings = { secrets: [CANARY], patterns: false };
        expect(streamed(split(text, points), settings).join("")).toBe(createRedactor(settings).text(text));
      }),
      { numRuns: 300 },
    );
  });

  it("holds back only an end that may begin a secret, and passes ordinary text on at once", () => {
    expect(streamed(["hello ", "world"], { secrets: [CANARY] })).toEqual(["hello ", "world"]);
    expect(streamed(["hello can", "ary-5f", "3a9 done"], { secrets: [CANARY], patterns: false })).toEqual(["hello ", "canary-5f3a9 done"]);
    expect(streamed(["a key: s", "k-", "x done"], { patterns: true })).toEqual(["a key: ", "sk-x done"]);
    expect(streamed(["Auth: Bea", "rer", " abc"], {})).toEqual(["Auth: ", "Bearer abc"]);
    // Without known values or patterns nothing is held back.
    expect(streamed(["a", "b"], { patterns: false })).toEqual(["a", "b"]);
  });
});

describe("an agent's streamed text", () => {
  it("is scrubbed with the log's redactor, also when the canary key is split across chunks", async () => {
    const answer = `Sure. The key is ${CANARY}, and the other one ${OPENAI_LOOKING}. Done.`;
    for (const size of [1, 3, 7, 16]) {
      const pieces = answer.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      const model: LanguageModel = {
        provider: "streaming",
        model: "m",
        generate: async (_request: LlmRequest, options: GenerateOptions) => {
          for (const piece of pieces) options.onTextDelta?.(piece);
          return { text: answer, toolCalls: [], stopReason: "end", usage: null };
        },
      };
      const seen: string[] = [];
      const run = AgentRun.start({ name: "a", maxSteps: 2, model, tools: [], redaction: { secrets: [CANARY] } }, { store: new MemoryRunStore(), context: testContext() });
      const outcome = await run.send("what is the key?", { onTextDelta: (delta) => seen.push(delta) });
      const shown = seen.join("");
      expect(shown, `chunks of ${size}`).not.toContain(CANARY);
      expect(shown).not.toContain(OPENAI_LOOKING);
      for (const piece of seen) expect(piece).not.toMatch(/5f3a9c0e|AbCdEf0123/);
      expect(shown).toBe(outcome.output);
    }
  });
});
