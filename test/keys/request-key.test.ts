/** Request keys: replay finds a recorded answer by what determines it, and by nothing else. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digest } from "../../src/canonical/index.js";
import type { LlmRequest } from "../../src/contracts/index.js";
import { requestKey } from "../../src/keys/index.js";

const tools = [{ name: "search", description: "Searches the docs.", parameters: { type: "object", properties: { q: { type: "string" } } } }];
const base: LlmRequest = {
  model: "gpt-test",
  system: "Be brief.",
  messages: [{ role: "user", content: "What is Retrace?" }],
  tools,
  temperature: 0,
  maxTokens: 100,
  seed: 7,
};

/** The same value with its object keys in reverse insertion order, at every level. */
function reversedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversedKeys) as T;
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reversedKeys(item)])) as T;
  return value;
}

const requestArb: fc.Arbitrary<LlmRequest> = fc.record(
  {
    model: fc.string({ minLength: 1, maxLength: 8 }),
    system: fc.string({ maxLength: 12 }),
    messages: fc.array(fc.record({ role: fc.constant("user" as const), content: fc.string({ maxLength: 12 }) }), { minLength: 1, maxLength: 3 }),
    tools: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 6 }), description: fc.string({ maxLength: 10 }), parameters: fc.constant({ type: "object" }) }), {
      maxLength: 2,
    }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    maxTokens: fc.integer({ min: 1, max: 4096 }),
    seed: fc.integer(),
  },
  { requiredKeys: ["model", "messages", "tools"] },
);

describe("requestKey", () => {
  it("is a sha256 digest, the same for the same request however its keys are ordered", () => {
    fc.assert(
      fc.property(requestArb, (request) => {
        const key = requestKey("openai", request);
        expect(key).toMatch(/^[0-9a-f]{64}$/);
        expect(requestKey("openai", reversedKeys(structuredClone(request)))).toBe(key);
      }),
    );
  });

  it("is the digest of the provider and the request, with the tool list by its digest", () => {
    expect(requestKey("openai", base)).toBe(digest({ provider: "openai", request: { ...base, tools: digest(tools) } }));
  });

  it("changes with the provider and with every field of the request", () => {
    const key = requestKey("openai", base);
    const variants: [string, string, LlmRequest][] = [
      ["provider", "anthropic", base],
      ["model", "openai", { ...base, model: "gpt-other" }],
      ["system", "openai", { ...base, system: "Be verbose." }],
      ["no system", "openai", { ...base, system: undefined }],
      ["messages", "openai", { ...base, messages: [{ role: "user", content: "What is replay?" }] }],
      ["more messages", "openai", { ...base, messages: [...base.messages, { role: "assistant", content: "A framework.", toolCalls: [] }] }],
      ["tools", "openai", { ...base, tools: [{ ...tools[0]!, description: "Searches the web." }] }],
      ["no tools", "openai", { ...base, tools: [] }],
      ["temperature", "openai", { ...base, temperature: 0.7 }],
      ["maxTokens", "openai", { ...base, maxTokens: 200 }],
      ["seed", "openai", { ...base, seed: 8 }],
    ];
    const keys = variants.map(([, provider, request]) => requestKey(provider, request));
    for (const [index, [name]] of variants.entries()) expect(keys[index], name).not.toBe(key);
    expect(new Set(keys).size).toBe(variants.length);
  });

  it("gives two equal tool lists the same key, whichever copy the request holds", () => {
    expect(requestKey("openai", { ...base, tools: structuredClone(tools) })).toBe(requestKey("openai", base));
  });
});
