/**
 * Request keys: what replay finds a recorded answer by. A key must be the same for the same
 * request however its objects were built (key order), and different as soon as anything that
 * determines the answer differs — the request's fields, the provider, the endpoint, and the
 * sampling a model adds to every request.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun, agentDigest } from "../../src/agent/index.js";
import type { LlmRequest, Message, ModelIdentity, ToolSpec } from "../../src/contracts/index.js";
import { identityOf } from "../../src/contracts/index.js";
import { answerHeaders, endpointOf, requestKey } from "../../src/keys/index.js";
import { createAnthropicModel } from "../../src/providers/anthropic/index.js";
import { createOpenAIModel } from "../../src/providers/openai/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { testContext } from "../helpers.js";

// --- Arbitraries -------------------------------------------------------------------------------

const text = fc.string({ maxLength: 12 });
const number = fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 });
const int = fc.integer({ min: 0, max: 1_000_000 });

const toolCall = fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: text, arguments: text });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), content: text }),
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, toolCalls: fc.array(toolCall, { maxLength: 3 }) }),
  fc.record({ role: fc.constant("tool" as const), toolCallId: text, name: text, content: text, isError: fc.boolean() }),
);
const tool: fc.Arbitrary<ToolSpec> = fc.record({
  name: text,
  description: text,
  parameters: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
});
const request: fc.Arbitrary<LlmRequest> = fc.record(
  {
    model: text,
    system: text,
    messages: fc.array(message, { maxLength: 5 }),
    tools: fc.array(tool, { maxLength: 3 }),
    temperature: number,
    maxTokens: int,
    seed: int,
  },
  { requiredKeys: ["model", "messages", "tools"] },
);
const identity: fc.Arbitrary<ModelIdentity> = fc.record(
  {
    provider: fc.constantFrom("openai", "openai-compatible", "anthropic", "scripted"),
    model: text,
    baseUrl: fc.constantFrom("https://api.openai.com/v1", "http://localhost:11434/v1", "http://gpu-2.lan:8000/v1", "https://api.anthropic.com"),
    temperature: number,
    maxTokens: int,
    seed: int,
    headers: fc.dictionary(fc.constantFrom("anthropic-version", "anthropic-beta", "x-route"), text, { maxKeys: 2 }),
  },
  { requiredKeys: ["provider", "model"] },
);

/** A deep copy whose objects list their keys in another order (a seeded shuffle). */
function reordered<T>(value: T, seed: number): T {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: deterministic, and no Math.random in tests that must replay.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== "object") return item;
    const entries = Object.entries(item);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, walk(inner)]));
  };
  return walk(value) as T;
}

/** Every way to change one field of one message (a new object each time: keys memoise tool lists). */
function messageVariants(messages: readonly Message[]): Message[][] {
  const variants: Message[][] = [];
  const replace = (index: number, changed: Message) => variants.push(messages.map((item, at) => (at === index ? changed : item)));
  messages.forEach((item, index) => {
    replace(index, { ...item, content: `${item.content}~` } as Message);
    if (item.role === "system") replace(index, { role: "user", content: item.content });
    if (item.role === "user") replace(index, { role: "system", content: item.content });
    if (item.role === "assistant") {
      replace(index, { ...item, toolCalls: [...item.toolCalls, { id: "c", name: "n", arguments: "{}" }] });
      item.toolCalls.forEach((call, at) => {
        for (const field of ["id", "name", "arguments"] as const) {
          replace(index, { ...item, toolCalls: item.toolCalls.map((other, k) => (k === at ? { ...call, [field]: `${call[field]}~` } : other)) });
        }
      });
    }
    if (item.role === "tool") {
      replace(index, { ...item, toolCallId: `${item.toolCallId}~` });
      replace(index, { ...item, name: `${item.name}~` });
      replace(index, { ...item, isError: !item.isError });
    }
    variants.push(messages.filter((_, at) => at !== index));
  });
  variants.push([...messages, { role: "user", content: "" }]);
  return variants;
}

/** A key the object does not have yet. */
function freshKey(object: object): string {
  let key = "~";
  while (Object.hasOwn(object, key)) key += "~";
  return key;
}

function toolVariants(tools: readonly ToolSpec[]): ToolSpec[][] {
  const variants: ToolSpec[][] = tools.flatMap((item, index) => {
    const replace = (changed: ToolSpec) => tools.map((other, at) => (at === index ? changed : other));
    return [
      replace({ ...item, name: `${item.name}~` }),
      replace({ ...item, description: `${item.description}~` }),
      replace({ ...item, parameters: { ...item.parameters, [freshKey(item.parameters)]: null } }),
      tools.filter((_, at) => at !== index),
    ];
  });
  variants.push([...tools, { name: "t", description: "", parameters: {} }]);
  return variants;
}

const other = (value: number | undefined) => (value === undefined ? 1 : value + 1);

/** Requests and models that differ from the given ones in one thing that determines the answer. */
function changes(model: ModelIdentity, req: LlmRequest): [string, ModelIdentity, LlmRequest][] {
  const out: [string, ModelIdentity, LlmRequest][] = [
    ["model", model, { ...req, model: `${req.model || model.model}~` }],
    ["system", model, { ...req, system: req.system === undefined ? "" : `${req.system}~` }],
    ["temperature", model, { ...req, temperature: other(req.temperature ?? model.temperature) }],
    ["maxTokens", model, { ...req, maxTokens: other(req.maxTokens ?? model.maxTokens) }],
    ["seed", model, { ...req, seed: other(req.seed ?? model.seed) }],
    ["provider", { ...model, provider: `${model.provider}~` }, req],
    ["base URL", { ...model, baseUrl: model.baseUrl === undefined ? "http://other.lan/v1" : `${model.baseUrl}/other` }, req],
    ["a header", { ...model, headers: { ...model.headers, "anthropic-beta": `${model.headers?.["anthropic-beta"] ?? ""}~` } }, req],
    ...messageVariants(req.messages).map((messages): [string, ModelIdentity, LlmRequest] => ["messages", model, { ...req, messages }]),
    ...toolVariants(req.tools).map((tools): [string, ModelIdentity, LlmRequest] => ["tools", model, { ...req, tools }]),
  ];
  // The model's own sampling decides the answer where the request sets none.
  if (req.temperature === undefined) out.push(["model temperature", { ...model, temperature: other(model.temperature) }, req]);
  if (req.maxTokens === undefined) out.push(["model maxTokens", { ...model, maxTokens: other(model.maxTokens) }, req]);
  if (req.seed === undefined) out.push(["model seed", { ...model, seed: other(model.seed) }, req]);
  if (req.model === "") out.push(["default model", { ...model, model: `${model.model}~` }, req]);
  return out;
}

// --- Properties (issue 9, property 4) ----------------------------------------------------------

describe("request keys", () => {
  it("do not depend on the order of object keys (request, messages, tool calls, tool parameters, model)", () => {
    fc.assert(
      fc.property(identity, request, fc.integer(), (model, req, seed) => {
        expect(requestKey(reordered(model, seed), reordered(req, seed))).toBe(requestKey(model, req));
      }),
    );
  });

  it("change with every field that determines the answer", () => {
    fc.assert(
      fc.property(identity, request, (model, req) => {
        const key = requestKey(model, req);
        for (const [field, changedModel, changedRequest] of changes(model, req)) {
          expect(requestKey(changedModel, changedRequest), `a change of ${field}`).not.toBe(key);
        }
      }),
    );
  });

  it("are the same for one request whether its sampling comes from the request or the model", () => {
    fc.assert(
      fc.property(identity, request, number, int, (model, req, temperature, maxTokens) => {
        const inRequest = requestKey(model, { ...req, temperature, maxTokens });
        const inModel = requestKey({ ...model, temperature, maxTokens }, { ...req, temperature: undefined, maxTokens: undefined });
        expect(inModel).toBe(inRequest);
      }),
    );
  });
});

// --- What the providers put in: endpoint and sampling, never credentials -----------------------

const REQUEST: LlmRequest = { model: "llama3", messages: [{ role: "user", content: "hi" }], tools: [] };

describe("the model identity that enters keys and the agent digest", () => {
  const compatible = (baseUrl: string, extra: Partial<Parameters<typeof createOpenAIModel>[0]> = {}) =>
    createOpenAIModel({ model: "llama3", provider: "openai-compatible", baseUrl, ...extra });

  it("two OpenAI-compatible servers serving one model name never share a key", () => {
    const ollama = compatible("http://localhost:11434/v1");
    const vllm = compatible("http://gpu-2.lan:8000/v1");
    expect(requestKey(identityOf(ollama), REQUEST)).not.toBe(requestKey(identityOf(vllm), REQUEST));
  });

  it("the key a run logs tells apart two endpoints and two model temperatures", async () => {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "llama3", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] };
    // A fetch of our own: the request never leaves the process.
    const fetch: typeof globalThis.fetch = async () => Response.json(answer);
    const loggedKey = async (model: ReturnType<typeof compatible>) => {
      const run = AgentRun.start({ name: "a", maxSteps: 2, model, tools: [] }, { store: new MemoryRunStore(), context: testContext() });
      await run.send("hi");
      return run.log.events.find((event) => event.type === "llm.started")?.requestKey;
    };
    const keys = await Promise.all([
      loggedKey(compatible("http://localhost:11434/v1", { fetch })),
      loggedKey(compatible("http://gpu-2.lan:8000/v1", { fetch })),
      loggedKey(compatible("http://localhost:11434/v1", { fetch, temperature: 0.9 })),
    ]);
    expect(keys.every((key) => typeof key === "string")).toBe(true);
    expect(new Set(keys).size).toBe(3);
  });

  it("a key leaves out the API key, headers, timeout, streaming and credentials in the URL", () => {
    const plain = requestKey(identityOf(compatible("http://llm.lan:8000/v1")), REQUEST);
    const dressed = compatible("http://user:pass@LLM.lan:8000/v1/?api_key=sk-abc&token=t#frag", {
      apiKey: "sk-live-0123456789",
      defaultHeaders: { "x-api-key": "sk-live-0123456789" },
      timeoutMs: 5,
      stream: true,
    });
    expect(requestKey(identityOf(dressed), REQUEST)).toBe(plain);
    for (const secret of ["sk-live", "sk-abc", "pass@"]) expect(JSON.stringify(identityOf(dressed))).not.toContain(secret);
    expect(endpointOf("https://gw.example/openai/?api-version=2024-02-01&key=k")).toBe("https://gw.example/openai?api-version=2024-02-01");
  });

  it("sampling set on a code-built model enters the key, as it goes on the wire", () => {
    const at = (options: { temperature?: number; maxTokens?: number; seed?: number }) => requestKey(identityOf(compatible("http://llm.lan/v1", options)), REQUEST);
    const keys = [at({}), at({ temperature: 0.2 }), at({ temperature: 0.7 }), at({ maxTokens: 64 }), at({ seed: 1 }), at({ seed: 2 })];
    expect(new Set(keys).size).toBe(keys.length);
    const anthropic = (maxTokens?: number) => requestKey(identityOf(createAnthropicModel({ model: "claude-haiku-4-5", ...(maxTokens ? { maxTokens } : {}) })), REQUEST);
    expect(anthropic(100)).not.toBe(anthropic(200));
    // 4096 is what the adapter sends when nothing sets a limit.
    expect(anthropic()).toBe(anthropic(4096));
  });

  it("the agent digest changes with the model's endpoint and sampling", () => {
    const agent = (model: ReturnType<typeof compatible>) => ({ name: "a", maxSteps: 3, model, tools: [] });
    const digests = [
      agentDigest(agent(compatible("http://localhost:11434/v1"))),
      agentDigest(agent(compatible("http://gpu-2.lan:8000/v1"))),
      agentDigest(agent(compatible("http://localhost:11434/v1", { temperature: 0.3 }))),
      agentDigest(agent(compatible("http://localhost:11434/v1", { seed: 9 }))),
      agentDigest(agent(compatible("http://localhost:11434/v1", { maxTokens: 10 }))),
    ];
    expect(new Set(digests).size).toBe(digests.length);
    expect(agentDigest(agent(compatible("http://localhost:11434/v1", { apiKey: "sk-other" })))).toBe(digests[0]);
  });

  it("two Anthropic models that differ only in a header that changes the answer never share a key or a digest", () => {
    const claude = (defaultHeaders?: Record<string, string>) => createAnthropicModel({ model: "claude-haiku-4-5", ...(defaultHeaders ? { defaultHeaders } : {}) });
    const models = [
      claude(),
      claude({ "anthropic-beta": "context-1m-2025-08-07" }),
      claude({ "anthropic-beta": "interleaved-thinking-2025-05-14" }),
      claude({ "anthropic-version": "2023-06-01" }),
      claude({ "x-route": "eu" }),
    ];
    const keys = models.map((model) => requestKey(identityOf(model), REQUEST));
    expect(new Set(keys).size).toBe(keys.length);
    const digests = models.map((model) => agentDigest({ name: "a", maxSteps: 3, model, tools: [] }));
    expect(new Set(digests).size).toBe(digests.length);
    // The version the SDK sends anyway is what an unset header means; names are case-insensitive.
    expect(requestKey(identityOf(claude({ "anthropic-version": "2026-10-21" })), REQUEST)).toBe(keys[0]);
    expect(requestKey(identityOf(claude({ "Anthropic-Beta": "context-1m-2025-08-07" })), REQUEST)).toBe(keys[1]);
    // Credentials are never part of it.
    const keyed = claude({ "x-api-key": "sk-ant-secret-0123456789", Authorization: "Bearer abc", Cookie: "s=1" });
    expect(requestKey(identityOf(keyed), REQUEST)).toBe(keys[0]);
    expect(JSON.stringify(identityOf(keyed))).not.toMatch(/secret|Bearer|s=1/);
  });

  it("an OpenAI-compatible model's configured headers count too, credentials never", () => {
    const plain = requestKey(identityOf(compatible("http://llm.lan/v1")), REQUEST);
    expect(requestKey(identityOf(compatible("http://llm.lan/v1", { defaultHeaders: { "X-Route": "gpu-2" } })), REQUEST)).not.toBe(plain);
    expect(requestKey(identityOf(compatible("http://llm.lan/v1", { defaultHeaders: { "OpenAI-Organization-Token": "t", "x-api-key": "k" } })), REQUEST)).toBe(plain);
    expect(answerHeaders({ "X-Route": "a", Authorization: "Bearer x", "x-goog-api-key": "k", gone: null })).toEqual({ "x-route": "a" });
  });

  it("a model that sends only the request (scripted) is known by its provider and model", () => {
    const scripted = new ScriptedModel({ responses: [{ text: "x" }] });
    expect(identityOf(scripted)).toEqual({ provider: scripted.provider, model: scripted.model });
  });
});

describe("request keys of unusual requests", () => {
  it("a request's own \"__proto__\" key is part of its key, as any other key is (found in review)", () => {
    const model: ModelIdentity = { provider: "openai", model: "m" };
    const plain = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[]}') as LlmRequest;
    const withKey = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[],"__proto__":"v"}') as LlmRequest;
    const withObject = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[],"__proto__":{"x":1}}') as LlmRequest;
    expect(requestKey(model, withKey)).not.toBe(requestKey(model, plain));
    expect(requestKey(model, withObject)).not.toBe(requestKey(model, withKey));
  });
});
