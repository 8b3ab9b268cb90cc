import { inspect } from "node:util";
import { delay, http, HttpResponse } from "msw";
import { describe, expect, it, vi } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { ProviderError } from "../../src/errors/index.js";
import type { LlmRequest, ToolSpec } from "../../src/contracts/index.js";
import { createOpenAIModel, type OpenAIModelOptions } from "../../src/providers/openai/index.js";
import {
  API_KEY,
  call,
  expectProviderError,
  hostileChunks,
  NUMBER_ARGUMENTS,
  openAISse,
  readWireBody,
  readWireFixture,
  splitsACharacter,
  sseResponse,
  streamOf,
  useMockServer,
  userRequest,
} from "./support.js";

const server = useMockServer();
const OPENAI_URL = "https://api.openai.com/v1/chat/completions";
const COMPATIBLE_BASE = "http://llm.local:8000/v1";
const COMPATIBLE_URL = `${COMPATIBLE_BASE}/chat/completions`;

const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function openai(options: Partial<OpenAIModelOptions> = {}) {
  return createOpenAIModel({ model: "gpt-4.1", apiKey: API_KEY, ...options });
}

function compatible(options: Partial<OpenAIModelOptions> = {}) {
  return createOpenAIModel({ model: "llama3", apiKey: API_KEY, baseUrl: COMPATIBLE_BASE, provider: "openai-compatible", ...options });
}

function completion(message: object, finishReason: string | null, usage?: object) {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4.1-2025-04-14",
    choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  };
}

/** Answers each POST with the next body, records what the SDK sent. */
function scripted(url: string, answers: ((request: Request) => Response | Promise<Response>)[]) {
  const sent: unknown[] = [];
  const requests: Request[] = [];
  server.use(
    http.post(url, async ({ request }) => {
      requests.push(request.clone());
      sent.push(await request.json());
      const answer = answers[sent.length - 1];
      if (!answer) throw new Error(`unexpected request number ${sent.length}`);
      return answer(request);
    }),
  );
  return { sent, requests };
}

const json = (body: unknown, init?: ResponseInit) => () => HttpResponse.json(body as object, init);

describe("OpenAI request and response mapping", () => {
  it("maps a two-step tool loop to the wire and back", async () => {
    const { sent } = scripted(OPENAI_URL, [
      json(
        completion(
          { content: null, tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
          "tool_calls",
          { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62, prompt_tokens_details: { cached_tokens: 0 } },
        ),
      ),
      json(
        completion({ content: "It is 18°C in Paris." }, "stop", {
          prompt_tokens: 80,
          completion_tokens: 9,
          total_tokens: 89,
          prompt_tokens_details: { cached_tokens: 64 },
        }),
      ),
    ]);
    const model = openai({ temperature: 1, maxTokens: 1000 });
    const first: LlmRequest = {
      model: "gpt-4.1",
      system: "You are terse.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [weatherTool],
      temperature: 0,
      maxTokens: 256,
      seed: 7,
    };
    const step1 = await model.generate(first, call(0));
    expect(step1).toEqual({
      id: "chatcmpl-test",
      model: "gpt-4.1-2025-04-14",
      text: "",
      toolCalls: [{ id: "call_abc", name: "get_weather", arguments: '{"city":"Paris"}' }],
      stopReason: "tool_calls",
      usage: { inputTokens: 50, outputTokens: 12, cachedInputTokens: 0 },
    });

    const second: LlmRequest = {
      ...first,
      messages: [
        ...first.messages,
        { role: "assistant", content: "", toolCalls: step1.toolCalls },
        { role: "tool", toolCallId: "call_abc", name: "get_weather", content: '{"celsius":18}', isError: false },
      ],
    };
    const step2 = await model.generate(second, call(1));
    expect(step2).toMatchObject({
      text: "It is 18°C in Paris.",
      toolCalls: [],
      stopReason: "end",
      usage: { inputTokens: 80, outputTokens: 9, cachedInputTokens: 64 },
    });

    const wireTools = [
      { type: "function", function: { name: "get_weather", description: "Current weather for a city", parameters: weatherTool.parameters } },
    ];
    // The request's own sampling values win over the model's defaults.
    expect(canonicalJson(sent[0])).toBe(
      canonicalJson({
        model: "gpt-4.1",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Weather in Paris?" },
        ],
        tools: wireTools,
        temperature: 0,
        seed: 7,
        max_completion_tokens: 256,
      }),
    );
    expect(canonicalJson(sent[1])).toBe(
      canonicalJson({
        model: "gpt-4.1",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Weather in Paris?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
          },
          { role: "tool", tool_call_id: "call_abc", content: '{"celsius":18}' },
        ],
        tools: wireTools,
        temperature: 0,
        seed: 7,
        max_completion_tokens: 256,
      }),
    );
  });

  it("sends parallel tool calls back as one assistant message and one tool message per result", async () => {
    const { sent } = scripted(OPENAI_URL, [
      json(
        completion(
          {
            content: "Checking both.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
          "tool_calls",
        ),
      ),
      json(completion({ content: "Done." }, "stop")),
    ]);
    const model = openai();
    const request = userRequest("gpt-4.1", "Paris and Oslo?", { tools: [weatherTool] });
    const first = await model.generate(request, call(0));
    expect(first.text).toBe("Checking both.");
    expect(first.toolCalls.map((toolCall) => toolCall.id)).toEqual(["call_1", "call_2"]);
    await model.generate(
      {
        ...request,
        messages: [
          ...request.messages,
          { role: "assistant", content: first.text, toolCalls: first.toolCalls },
          { role: "tool", toolCallId: "call_1", name: "get_weather", content: "sunny", isError: false },
          { role: "tool", toolCallId: "call_2", name: "get_weather", content: "city not found", isError: true },
        ],
      },
      call(1),
    );
    const messages = (sent[1] as { messages: unknown[] }).messages;
    expect(messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: "Checking both.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "city not found" },
    ]);
  });

  it("uses max_tokens for OpenAI-compatible servers and omits an empty tools list", async () => {
    const { sent } = scripted(COMPATIBLE_URL, [json(completion({ content: "hi" }, "stop"))]);
    const model = compatible({ maxTokens: 64 });
    expect(model.provider).toBe("openai-compatible");
    await model.generate(userRequest("llama3"), call());
    expect(sent[0]).toEqual({ model: "llama3", messages: [{ role: "user", content: "hello" }], max_tokens: 64 });
  });

  it("maps finish reasons to the closed set", async () => {
    const cases: [string | null, boolean, string][] = [
      ["stop", false, "end"],
      ["length", false, "max_tokens"],
      ["content_filter", false, "content_filter"],
      ["tool_calls", true, "tool_calls"],
      // tool_choice forcing a function makes OpenAI answer "stop" with tool calls.
      ["stop", true, "tool_calls"],
      ["something_new", false, "other"],
      [null, false, "other"],
    ];
    const answers = cases.map(([finish, withTools]) =>
      json(
        completion(
          withTools
            ? { content: null, tool_calls: [{ id: "c", type: "function", function: { name: "get_weather", arguments: "{}" } }] }
            : { content: "x" },
          finish,
        ),
      ),
    );
    scripted(OPENAI_URL, answers);
    const model = openai();
    for (const [finish, , expected] of cases) {
      const response = await model.generate(userRequest("gpt-4.1"), call());
      expect({ finish, stopReason: response.stopReason }).toEqual({ finish, stopReason: expected });
    }
  });

  it("reports a refusal as content_filter with the refusal as text", async () => {
    scripted(OPENAI_URL, [json(completion({ content: null, refusal: "I can't help with that." }, "stop"))]);
    const response = await openai().generate(userRequest("gpt-4.1"), call());
    expect(response).toMatchObject({ text: "I can't help with that.", stopReason: "content_filter" });
  });
});

describe("OpenAI tool arguments are the text the model produced, never re-serialised", () => {
  it("whole response: the arguments string, byte for byte", async () => {
    scripted(OPENAI_URL, [() => new Response(readWireBody("openai-tool-call-numbers.message.json"), { headers: { "content-type": "application/json" } })]);
    const response = await openai().generate(userRequest("gpt-4.1"), call());
    expect(response.toolCalls).toEqual([{ id: "call_numbers", name: "compute", arguments: NUMBER_ARGUMENTS }]);
  });

  it("streaming: the concatenated argument fragments, byte for byte", async () => {
    const chunks = hostileChunks(openAISse(readWireFixture("openai-tool-call-numbers.chunks.jsonl")), 5);
    scripted(OPENAI_URL, [() => sseResponse(streamOf(chunks))]);
    const response = await openai({ stream: true }).generate(userRequest("gpt-4.1"), call());
    expect(response.toolCalls).toEqual([{ id: "call_numbers", name: "compute", arguments: NUMBER_ARGUMENTS }]);
  });
});

describe("OpenAI streaming", () => {
  it("replays a real captured stream cut at hostile byte boundaries", async () => {
    const lines = readWireFixture("openai-text-excerpt.chunks.jsonl");
    const chunks = hostileChunks(openAISse(lines), 5);
    const { sent } = scripted(OPENAI_URL, [() => sseResponse(streamOf(chunks))]);
    const deltas: string[] = [];
    const response = await openai({ stream: true }).generate(userRequest("gpt-4.1-nano"), call(0, { onTextDelta: (delta) => deltas.push(delta) }));
    expect(response).toEqual({
      id: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0",
      model: "gpt-4.1-nano-2025-04-14",
      text: "**Holiday Name:** Harmony Day.",
      toolCalls: [],
      stopReason: "end",
      usage: { inputTokens: 16, outputTokens: 300, cachedInputTokens: 0 },
    });
    expect(deltas).toEqual(["**", "Holiday", " Name", ":**", " Harmony", " Day", "."]);
    expect(sent[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles parallel tool calls by index when chunks split UTF-8 characters and JSON strings", async () => {
    const base = { id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "gpt-4.1" };
    const delta = (value: object, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta: value, logprobs: null, finish_reason: finish }],
    });
    const fragment = (index: number, value: object) => delta({ tool_calls: [{ index, ...value }] });
    const sse = openAISse([
      delta({ role: "assistant", content: "Vérifions ☕ " }),
      delta({ content: "😀" }),
      fragment(0, { id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }),
      fragment(1, { id: "call_b", type: "function", function: { name: "get_weather", arguments: "" } }),
      fragment(0, { function: { arguments: '{"city":"Zür' } }),
      fragment(1, { function: { arguments: '{"city":"Kraków' } }),
      fragment(0, { function: { arguments: 'ich ☕"}' } }),
      fragment(1, { function: { arguments: ' 😀"}' } }),
      delta({}, "tool_calls"),
      { ...base, choices: [], usage: { prompt_tokens: 30, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 10 } } },
    ]);
    const chunks = hostileChunks(sse, 11);
    expect(splitsACharacter(chunks)).toBe(true);
    scripted(OPENAI_URL, [() => sseResponse(streamOf(chunks))]);
    const deltas: string[] = [];
    const response = await openai({ stream: true }).generate(
      userRequest("gpt-4.1", "two cities", { tools: [weatherTool] }),
      call(3, { onTextDelta: (text) => deltas.push(text) }),
    );
    expect(response.text).toBe("Vérifions ☕ 😀");
    expect(deltas.join("")).toBe(response.text);
    expect(response.toolCalls).toEqual([
      { id: "call_a", name: "get_weather", arguments: '{"city":"Zürich ☕"}' },
      { id: "call_b", name: "get_weather", arguments: '{"city":"Kraków 😀"}' },
    ]);
    expect(response.stopReason).toBe("tool_calls");
    expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 20, cachedInputTokens: 10 });
  });

  it("fails a stream that ends without finish_reason or usage as cut short", async () => {
    const lines = readWireFixture("openai-text-excerpt.chunks.jsonl");
    scripted(OPENAI_URL, [() => sseResponse(streamOf(hostileChunks(openAISse(lines.slice(0, 5), false))))]);
    const error = await expectProviderError(openai({ stream: true }).generate(userRequest("gpt-4.1-nano"), call()), "invalid_response");
    expect(error.message).toContain("without a finish_reason");
  });

  it("reports an error event inside a stream as a server error", async () => {
    const lines = readWireFixture("openai-text-excerpt.chunks.jsonl");
    const body = openAISse([lines[0]!, { error: { message: "The server had an error while processing your request.", type: "server_error" } }], false);
    scripted(OPENAI_URL, [() => sseResponse(streamOf(hostileChunks(body)))]);
    const error = await expectProviderError(openai({ stream: true }).generate(userRequest("gpt-4.1"), call()), "server");
    expect(error.message).toContain("The server had an error while processing your request.");
  });

  it("fails a stream whose event is not JSON as an invalid response", async () => {
    scripted(OPENAI_URL, [() => sseResponse(streamOf(hostileChunks('data: {"id":"x","choices":[{"delta":{"content":"tru\n\n')))]);
    await expectProviderError(openai({ stream: true }).generate(userRequest("gpt-4.1"), call()), "invalid_response");
  });
});

describe("OpenAI-compatible quirks", () => {
  it("canonicalises object arguments and invents ids from the call index", async () => {
    scripted(COMPATIBLE_URL, [
      json({
        choices: [
          {
            message: {
              content: "",
              tool_calls: [
                { function: { name: "get_weather", arguments: { unit: "c", city: "Lyon" } } },
                { function: { name: "get_weather", arguments: '{"city": "Nice"}' } },
                { function: { name: "list_cities" } },
              ],
            },
          },
        ],
      }),
    ]);
    const response = await compatible().generate(userRequest("llama3", "weather", { tools: [weatherTool] }), call(4));
    expect(response).toEqual({
      text: "",
      toolCalls: [
        { id: "call_4_0", name: "get_weather", arguments: '{"city":"Lyon","unit":"c"}' },
        // A string is kept as the model wrote it.
        { id: "call_4_1", name: "get_weather", arguments: '{"city": "Nice"}' },
        { id: "call_4_2", name: "list_cities", arguments: "{}" },
      ],
      // No finish_reason, but tool calls: the model stopped to call them.
      stopReason: "tool_calls",
      // No usage at all: unknown (null), not a failure, and never a fake 0 tokens.
      usage: null,
    });
  });

  it("streams without index, ids, finish_reason or usage", async () => {
    const sse = openAISse([
      { choices: [{ delta: { content: "ok " } }] },
      { choices: [{ delta: { tool_calls: [{ function: { name: "get_weather", arguments: { city: "Lyon" } } }] } }] },
    ]);
    scripted(COMPATIBLE_URL, [() => sseResponse(streamOf(hostileChunks(sse)))]);
    const response = await compatible({ stream: true }).generate(userRequest("llama3"), call(2));
    expect(response).toEqual({
      text: "ok ",
      toolCalls: [{ id: "call_2_0", name: "get_weather", arguments: '{"city":"Lyon"}' }],
      stopReason: "tool_calls",
      usage: null,
    });
  });

  it("surfaces an error message that is not in OpenAI's error envelope", async () => {
    scripted(COMPATIBLE_URL, [
      json({ object: "error", message: "This model's maximum context length is 4096 tokens.", type: "BadRequestError", code: 400 }, { status: 400 }),
    ]);
    const error = await expectProviderError(compatible().generate(userRequest("llama3"), call()), "bad_request");
    expect(error.message).toContain("This model's maximum context length is 4096 tokens.");
    expect(error.provider).toBe("openai-compatible");
  });

  it("sends no Authorization header to a keyless server", async () => {
    const { requests } = scripted(COMPATIBLE_URL, [json(completion({ content: "hi" }, "stop"))]);
    await compatible({ apiKey: "" }).generate(userRequest("llama3"), call());
    expect(requests[0]!.headers.get("authorization")).toBeNull();
  });
});

describe("OpenAI errors", () => {
  const failWith = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    scripted(OPENAI_URL, [() => HttpResponse.json(body as object, { status, headers })]);
  const envelope = (message: string, type = "invalid_request_error") => ({ error: { message, type, param: null, code: null } });

  it("401 is auth, shows the provider's message, never the key, and is tried once", async () => {
    const { sent } = failWith(401, envelope(`Incorrect API key provided: ${API_KEY}.`));
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "auth");
    expect(error.status).toBe(401);
    expect(error.message).toContain("Incorrect API key provided");
    expect(inspect(error, { depth: 8 })).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(sent).toHaveLength(1);
  });

  it("403 is auth", async () => {
    failWith(403, envelope("Project does not have access to model gpt-4.1"));
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "auth");
    expect(error.message).toContain("Project does not have access");
  });

  it("404 is not_found and says the model may not exist", async () => {
    failWith(404, envelope("The model `gpt-9` does not exist or you do not have access to it.", "model_not_found"));
    const error = await expectProviderError(openai({ model: "gpt-9" }).generate(userRequest("gpt-9"), call()), "not_found");
    expect(error.message).toContain('model "gpt-9"');
    expect(error.message).toContain("may not exist");
    expect(error.retryable).toBe(false);
  });

  it("400 and 422 are bad_request with the provider's message", async () => {
    failWith(400, envelope("Invalid schema for function 'get_weather': 'object' is not valid."));
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "bad_request");
    expect(error.message).toContain("Invalid schema for function 'get_weather'");
    failWith(422, envelope("Unprocessable"));
    await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "bad_request");
  });

  it("429 is rate_limited with retry-after parsed, and the SDK does not retry", async () => {
    const { sent } = failWith(429, envelope("Rate limit reached for gpt-4.1", "requests"), { "retry-after": "2" });
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "rate_limited");
    expect(error.retryAfterMs).toBe(2000);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("Rate limit reached for gpt-4.1");
    expect(sent).toHaveLength(1);
  });

  it("prefers retry-after-ms and reads an HTTP date", async () => {
    failWith(429, envelope("slow down"), { "retry-after-ms": "1500", "retry-after": "9" });
    expect((await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "rate_limited")).retryAfterMs).toBe(1500);
    // The date is measured against the clock the call is given, never the machine's.
    failWith(429, envelope("slow down"), { "retry-after": "Thu, 01 Jan 2026 00:01:00 GMT" });
    const now = () => Date.UTC(2026, 0, 1, 0, 0, 0);
    const retryAfterMs = (await expectProviderError(openai().generate(userRequest("gpt-4.1"), call(0, { now })), "rate_limited")).retryAfterMs;
    expect(retryAfterMs).toBe(60_000);
  });

  it("measures an HTTP-date retry-after against the run's clock when it is given", async () => {
    failWith(429, envelope("slow down"), { "retry-after": "Thu, 01 Jan 2026 00:01:30 GMT" });
    const runClock = () => Date.UTC(2026, 0, 1, 0, 1, 0);
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call(0, { now: runClock })), "rate_limited");
    expect(error.retryAfterMs).toBe(30_000);
  });

  it("500 and 503 are server errors, tried once", async () => {
    const { sent } = failWith(500, envelope("The server had an error", "server_error"));
    await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "server");
    expect(sent).toHaveLength(1);
    failWith(503, envelope("The engine is currently overloaded", "server_error"), { "retry-after": "1" });
    const error = await expectProviderError(openai().generate(userRequest("gpt-4.1"), call()), "server");
    expect(error).toMatchObject({ status: 503, retryAfterMs: 1000, retryable: true });
  });

  it("times out when the headers never come", async () => {
    server.use(http.post(OPENAI_URL, async () => {
      await delay("infinite");
      return HttpResponse.json({});
    }));
    const error = await expectProviderError(openai({ timeoutMs: 150 }).generate(userRequest("gpt-4.1"), call()), "timeout");
    expect(error.message).toContain("150 ms");
  });

  it("times out when a stream stalls after its first chunks", async () => {
    const lines = readWireFixture("openai-text-excerpt.chunks.jsonl");
    scripted(OPENAI_URL, [() => sseResponse(streamOf(hostileChunks(openAISse(lines.slice(0, 3), false)), { endless: true }))]);
    const deltas: string[] = [];
    let stalled!: () => void;
    const reachedStall = new Promise<void>((resolve) => (stalled = resolve));
    // The deadline fires only once the chunks before the stall are in, however slow the machine:
    // its timer is a fake one, moved on by hand.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const pending = openai({ stream: true, timeoutMs: 200 }).generate(
        userRequest("gpt-4.1"),
        call(0, {
          onTextDelta: (text) => {
            deltas.push(text);
            if (deltas.length === 2) stalled();
          },
        }),
      );
      await reachedStall;
      vi.advanceTimersByTime(200);
      await expectProviderError(pending, "timeout");
    } finally {
      vi.useRealTimers();
    }
    expect(deltas).toEqual(["**", "Holiday"]);
  });

  it("times out when a JSON body stalls half-way", async () => {
    const half = new TextEncoder().encode('{"id":"chatcmpl-1","choices":[');
    scripted(OPENAI_URL, [
      () => new Response(streamOf([half], { endless: true }), { headers: { "content-type": "application/json" } }),
    ]);
    await expectProviderError(openai({ timeoutMs: 200 }).generate(userRequest("gpt-4.1"), call()), "timeout");
  });

  it("times out even through a fetch that ignores its abort signal", async () => {
    const deaf: typeof fetch = () => new Promise<Response>(() => undefined);
    await expectProviderError(openai({ fetch: deaf, timeoutMs: 100 }).generate(userRequest("gpt-4.1"), call()), "timeout");
  });

  it("garbage JSON, truncated JSON, a wrong shape and a non-JSON body are invalid responses", async () => {
    const raw = (body: string, type = "application/json") => () => new Response(body, { headers: { "content-type": type } });
    scripted(OPENAI_URL, [
      raw("this is not json {"),
      raw('{"id":"chatcmpl-1","choices":[{"message":{"content":"hel'),
      raw('{"id":"chatcmpl-1","choices":[]}'),
      raw('{"id":"chatcmpl-1","choices":[{"message":{"content":42}}]}'),
      raw("<html>Bad gateway</html>", "text/html"),
    ]);
    const model = openai();
    await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "invalid_response");
    const truncated = await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "invalid_response");
    expect(truncated.message).toContain("not valid JSON");
    const empty = await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "invalid_response");
    expect(empty.message).toContain("choices");
    const wrong = await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "invalid_response");
    expect(wrong.message).toContain("choices[0].message.content");
    const html = await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "invalid_response");
    expect(html.message).toContain("not JSON");
  });

  it("an unhandled request (wrong path) fails the call instead of reaching the network", async () => {
    const unhandled = server.expectUnhandled();
    const model = openai({ baseUrl: "https://api.openai.com/v2-wrong" });
    const error = await expectProviderError(model.generate(userRequest("gpt-4.1"), call()), "connection");
    expect(error.message).toContain("could not reach OpenAI");
    expect(unhandled).toEqual(["POST https://api.openai.com/v2-wrong/chat/completions"]);
  });

  it("a missing key fails before any request", async () => {
    const error = await expectProviderError(openai({ apiKey: "" }).generate(userRequest("gpt-4.1"), call()), "missing_key");
    expect(error.retryable).toBe(false);
  });

  it("a caller's abort rejects with the caller's reason, not a retryable provider error", async () => {
    const controller = new AbortController();
    const reason = new Error("run cancelled");
    // Cancelled once the request is in flight, whenever that is: no timer decides the order.
    server.use(http.post(OPENAI_URL, async () => {
      controller.abort(reason);
      await delay("infinite");
      return HttpResponse.json({});
    }));
    const error = await openai().generate(userRequest("gpt-4.1"), call(0, { signal: controller.signal })).catch((caught: unknown) => caught);
    expect(error).toBe(reason);
    expect(error).not.toBeInstanceOf(ProviderError);
  });
});
