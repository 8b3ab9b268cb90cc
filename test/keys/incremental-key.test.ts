/**
 * A request key over an immutable conversation hashes only the messages added since the list
 * it grew from. The key must be the one a from-scratch hash of an equal plain request gives,
 * step after step, whatever the identity and the request's other fields.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { immutable, immutableList } from "../../src/canonical/index.js";
import type { LlmRequest, Message, ModelIdentity } from "../../src/contracts/index.js";
import { requestKey } from "../../src/keys/index.js";
import { incrementalWork } from "../../src/keys/request-key.js";

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('"messages":[]', ',"messages":[', "\\", "é"));
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, toolCalls: fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), name: text, arguments: text }), { maxLength: 2 }) }),
  fc.record({ role: fc.constant("tool" as const), toolCallId: text, name: text, content: text, isError: fc.boolean() }),
);
const identity: fc.Arbitrary<ModelIdentity> = fc.record(
  {
    provider: fc.constantFrom("openai", "scripted", '"messages":[]'),
    model: text,
    baseUrl: fc.constantFrom("https://api.openai.com/v1", 'http://x/"messages":[]'),
    maxTokens: fc.integer({ min: -5, max: 100 }),
    headers: fc.dictionary(fc.constantFrom("messages", "anthropic-version", "a"), text, { maxKeys: 2 }),
  },
  { requiredKeys: ["provider", "model"] },
);
/** Fields a caller might add to a request, some sorting before "messages" in the key's text. */
const extra = fc.dictionary(fc.constantFrom("extra", "a", "zz", "maxTokens"), fc.oneof(fc.constant({ messages: [] }), fc.integer(), text), { maxKeys: 2 });

describe("requestKey over a growing immutable conversation", () => {
  it("equals the from-scratch key at every step", () => {
    fc.assert(
      fc.property(identity, fc.array(fc.array(message, { maxLength: 3 }), { minLength: 1, maxLength: 6 }), fc.option(text, { nil: undefined }), extra, (model, steps, system, added) => {
        let list = immutableList<Message>([]);
        let plain: Message[] = [];
        for (const batch of steps) {
          const grown = [...list, ...batch.map((item) => immutable(structuredClone(item)))];
          list = immutableList(grown, list);
          plain = [...plain, ...structuredClone(batch)];
          const base: LlmRequest = { model: "m", ...(system !== undefined ? { system } : {}), messages: [], tools: [] };
          const incremental = { ...base, ...added, messages: list as Message[] } as LlmRequest;
          const scratch = { ...base, ...structuredClone(added), messages: plain } as LlmRequest;
          expect(requestKey(model, incremental)).toBe(requestKey(model, scratch));
          // Asked again (the remembered hash is copied, never consumed).
          expect(requestKey(model, incremental)).toBe(requestKey(model, scratch));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("does not continue from a list it did not grow from", () => {
    const a = immutable({ role: "user" as const, content: "a" });
    const b = immutable({ role: "user" as const, content: "b" });
    const first = immutableList<Message>([a]);
    requestKey({ provider: "openai", model: "m" }, { model: "m", messages: first as Message[], tools: [] });
    // Claimed to grow from `first`, but its first message differs: nothing is taken from `first`.
    const other = immutableList<Message>([b, a], first);
    expect(requestKey({ provider: "openai", model: "m" }, { model: "m", messages: other as Message[], tools: [] })).toBe(
      requestKey({ provider: "openai", model: "m" }, { model: "m", messages: structuredClone([b, a]), tools: [] }),
    );
  });
});

/**
 * What each step costs. The digest is the same on either path, so these read the count of
 * messages the incremental path serialised: a step hashes only what it added, a key asked again
 * hashes nothing, and a request the path cannot split (too short, a plain list, a field written
 * before its messages) never takes it.
 */
describe("the work an incremental key does", () => {
  const model: ModelIdentity = { provider: "openai", model: "m" };
  const say = (count: number, from = 0): Message[] => Array.from({ length: count }, (_, i) => immutable<Message>({ role: "user", content: `m${from + i}` }));
  const work = (key: () => unknown): number => {
    const before = incrementalWork.messages;
    key();
    return incrementalWork.messages - before;
  };

  it("hashes the first long conversation whole, then only what each step adds", () => {
    const first = immutableList(say(8));
    const request = (messages: readonly Message[]): LlmRequest => ({ model: "m", messages: messages as Message[], tools: [], maxTokens: 64 });
    expect(work(() => requestKey(model, request(first)))).toBe(8);
    const grown = immutableList([...first, ...say(2, 8)], first);
    expect(work(() => requestKey(model, request(grown)))).toBe(2);
    // Asked again: the hash is remembered for the list.
    expect(work(() => requestKey(model, request(grown)))).toBe(0);
    expect(requestKey(model, request(grown))).toBe(requestKey(model, request(structuredClone([...grown]))));
  });

  it("remembers a list's hash for each model that asked, not only the last", () => {
    const list = immutableList(say(9));
    const request: LlmRequest = { model: "m", messages: list as Message[], tools: [] };
    const other: ModelIdentity = { provider: "anthropic", model: "m" };
    expect(work(() => requestKey(model, request))).toBe(9);
    expect(work(() => requestKey(other, request))).toBe(9);
    expect(work(() => requestKey(model, request))).toBe(0);
    expect(work(() => requestKey(other, request))).toBe(0);
  });

  it("is taken with or without maxTokens, which is a number written before the messages", () => {
    expect(work(() => requestKey(model, { model: "m", messages: immutableList(say(8)) as Message[], tools: [] }))).toBe(8);
    expect(work(() => requestKey({ ...model, maxTokens: 5 }, { model: "m", messages: immutableList(say(8)) as Message[], tools: [] }))).toBe(8);
  });

  it("is not taken for a short conversation, a plain list, or a field written before the messages", () => {
    expect(work(() => requestKey(model, { model: "m", messages: immutableList(say(7)) as Message[], tools: [] }))).toBe(0);
    expect(work(() => requestKey(model, { model: "m", messages: structuredClone(say(12)), tools: [] }))).toBe(0);
    for (const field of [{ extra: 1 }, { a: "x" }, { maxTokens: "64" }]) {
      const request = { model: "m", ...field, messages: immutableList(say(8)) as Message[], tools: [] } as LlmRequest;
      expect(work(() => requestKey(model, request))).toBe(0);
      expect(requestKey(model, request)).toBe(requestKey(model, { ...request, messages: structuredClone([...request.messages]) }));
    }
  });
});
