/**
 * What a request key is, stated from outside: sha256 over the canonical JSON of the provider,
 * the endpoint, the answer-changing headers (names in lower case) and the request with the
 * model's sampling filled in and its tools by their digest. Bundles and logs recorded by one
 * version are matched by the next with these keys, so a few are pinned as literal digests too.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, immutable, immutableList } from "../../src/canonical/index.js";
import type { LlmRequest, Message, ModelIdentity, ToolSpec } from "../../src/contracts/index.js";
import { answerHeaders, endpointOf, requestKey } from "../../src/keys/index.js";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The key as the documentation above defines it, built without the module's own helpers. */
function specifiedKey(model: ModelIdentity, request: LlmRequest): string {
  const headers = Object.fromEntries(Object.entries(model.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return sha256(
    canonicalJson({
      provider: model.provider,
      endpoint: endpointOf(model.baseUrl),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      request: {
        ...request,
        model: request.model || model.model,
        temperature: request.temperature ?? model.temperature,
        maxTokens: request.maxTokens ?? model.maxTokens,
        seed: request.seed ?? model.seed,
        tools: sha256(canonicalJson(request.tools)),
      },
    }),
  );
}

const text = fc.string({ maxLength: 8 });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, toolCalls: fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), name: text, arguments: text }), { maxLength: 2 }) }),
  fc.record({ role: fc.constant("tool" as const), toolCallId: text, name: text, content: text, isError: fc.boolean() }),
);
const tool: fc.Arbitrary<ToolSpec> = fc.record({ name: text, description: text, parameters: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) });
const identity: fc.Arbitrary<ModelIdentity> = fc.record(
  {
    provider: fc.constantFrom("openai", "anthropic", "openai-compatible"),
    model: text,
    baseUrl: fc.constantFrom("https://api.openai.com/v1", "http://gpu-2.lan:8000/v1/"),
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 2 }),
    maxTokens: fc.integer({ min: 1, max: 4096 }),
    seed: fc.integer({ min: 0, max: 99 }),
    headers: fc.dictionary(fc.constantFrom("anthropic-version", "Anthropic-Beta", "X-Route", "openai-beta"), text, { maxKeys: 3 }),
  },
  { requiredKeys: ["provider", "model"] },
);
const request: fc.Arbitrary<LlmRequest> = fc.record(
  {
    model: text,
    system: text,
    // Long enough, at times, for the key to be hashed message by message.
    messages: fc.array(message, { maxLength: 12 }),
    tools: fc.array(tool, { maxLength: 2 }),
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 2 }),
    maxTokens: fc.integer({ min: 1, max: 4096 }),
    seed: fc.integer({ min: 0, max: 99 }),
  },
  { requiredKeys: ["model", "messages", "tools"] },
);

describe("a request key is the digest of what determines the answer", () => {
  it("equals the specified digest, for plain and immutable conversations of any length", () => {
    fc.assert(
      fc.property(identity, request, (model, req) => {
        const expected = specifiedKey(model, req);
        expect(requestKey(model, req)).toBe(expected);
        const frozen = immutableList(req.messages.map((item) => immutable(structuredClone(item)))) as Message[];
        expect(requestKey(model, { ...req, messages: frozen })).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("the same for a long immutable conversation beside fields that sort before its messages", () => {
    // The incremental hash splits the key's text at the request's messages: a field written
    // before them (one holding a "messages" list of its own, a maxTokens that is no number)
    // must not move the split.
    const before = fc.dictionary(fc.constantFrom("a", "extra", "maxTokens", "lead"), fc.oneof(fc.constant({ messages: [] }), fc.constant('"messages":[]'), fc.integer(), fc.constant("x")), { minKeys: 1, maxKeys: 3 });
    fc.assert(
      fc.property(identity, request, fc.array(message, { minLength: 8, maxLength: 12 }), before, (model, req, messages, added) => {
        const plain = { ...req, ...added, messages } as LlmRequest;
        const frozen = { ...plain, messages: immutableList(messages.map((item) => immutable(structuredClone(item)))) as Message[] };
        expect(requestKey(model, frozen)).toBe(specifiedKey(model, plain));
      }),
      { numRuns: 300 },
    );
  });

  it("a conversation list edited in place gets the key of what it holds now", () => {
    const messages = conversation(10);
    const req: LlmRequest = { model: "m", messages, tools: [] };
    const first = requestKey(model, req);
    (messages[3] as { content: string }).content = "edited";
    messages.push({ role: "user", content: "one more" });
    expect(requestKey(model, req)).toBe(specifiedKey(model, structuredClone(req)));
    expect(requestKey(model, req)).not.toBe(first);
  });

  // Literal digests, the same as before keys were hashed incrementally (d59fe82): if one
  // changes, recorded runs stop matching. Change them only on purpose, with the release note
  // that says recorded bundles must be captured again.
  const model: ModelIdentity = {
    provider: "anthropic",
    model: "claude-haiku-4-5",
    baseUrl: "https://API.anthropic.com/",
    temperature: 0,
    headers: { "Anthropic-Beta": "context-1m-2025-08-07", "X-Route": "eu" },
  };
  const conversation = (count: number): Message[] =>
    Array.from({ length: count }, (_, i): Message => (i % 2 === 0 ? { role: "user", content: `question ${i}` } : { role: "assistant", content: `answer ${i}`, toolCalls: [] }));
  const tools: ToolSpec[] = [{ name: "calculator", description: "Evaluates arithmetic.", parameters: { type: "object", properties: { expression: { type: "string" } } } }];

  it("is pinned for a short request whose model sets sampling and headers", () => {
    const req: LlmRequest = { model: "", system: "Be brief.", messages: conversation(2), tools, maxTokens: 256 };
    expect(requestKey(model, req)).toBe("35174d936e4af2089e1e7c660299ad8e2376cf5f89f010a6a80005f55bf1ed9e");
  });

  it("is pinned for a long conversation, hashed incrementally step by step", () => {
    const req = (messages: readonly Message[]): LlmRequest => ({ model: "claude-sonnet-4-5", messages: messages as Message[], tools, seed: 7 });
    let list = immutableList<Message>([]);
    const keys: string[] = [];
    for (const step of [conversation(8), conversation(10)]) {
      list = immutableList([...list, ...step.slice(list.length).map((item) => immutable(item))], list);
      keys.push(requestKey(model, req(list)));
    }
    expect(keys).toEqual(["ec3bbb2ba457d71817dbf97bddbae09a933e1548153fbbc88bb981a29e2ef29f", "aee3fb982b4777d794c0029c93d9c73876eb81e06958db09897486e11d48ff25"]);
    expect(keys).toEqual([requestKey(model, req(conversation(8))), requestKey(model, req(conversation(10)))]);
  });
});

describe("the headers that enter a key", () => {
  it("drop credentials by their exact names, and keep names that only contain one", () => {
    const names = [
      "Cookie", "cookies", "x-cookie", "Set-Cookie", "set-cookie2", "Proxy-Authorization", "proxy-authorization-info",
      "X-Amz-Signature", "x-signature-version", "x-route-key", "x-key", "x-keyring", "prefix-cache-key", "X-Route",
    ];
    expect(Object.keys(answerHeaders(Object.fromEntries(names.map((name) => [name, "v"]))))).toEqual([
      "cookies", "x-cookie", "set-cookie2", "proxy-authorization-info", "x-signature-version", "x-key", "x-keyring", "prefix-cache-key", "x-route",
    ]);
  });

  it("a model's headers enter its keys by lower-case name, so two spellings share a key", () => {
    const req: LlmRequest = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [] };
    const spelled = (name: string): string => requestKey({ provider: "anthropic", model: "m", headers: { [name]: "v" } }, req);
    expect(spelled("Anthropic-Beta")).toBe(spelled("anthropic-beta"));
    expect(spelled("ANTHROPIC-BETA")).toBe(spelled("anthropic-beta"));
    expect(spelled("anthropic-beta")).not.toBe(requestKey({ provider: "anthropic", model: "m" }, req));
    // No headers and an empty set of headers are one identity.
    expect(requestKey({ provider: "anthropic", model: "m", headers: {} }, req)).toBe(requestKey({ provider: "anthropic", model: "m" }, req));
  });
});
