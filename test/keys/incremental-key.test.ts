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
