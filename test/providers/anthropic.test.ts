import { inspect } from "node:util";
import { delay, http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { createAnthropicModel, type AnthropicModelOptions } from "../../src/providers/anthropic/index.js";
import type { LlmRequest, ToolSpec } from "../../src/contracts/index.js";
import {
  anthropicSse,
  API_KEY,
  call,
  expectProviderError,
  hostileChunks,
  NUMBER_ARGUMENTS,
  readWireBody,
  readWireFixture,
  splitsACharacter,
  sseResponse,
  streamOf,
  useMockServer,
  userRequest,
} from "./support.js";

const server = useMockServer();
const MESSAGES_URL = "https://api.anthropic.com/v1/messages";
const MODEL = "claude-sonnet-5";

const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function anthropic(options: Partial<AnthropicModelOptions> = {}) {
  return createAnthropicModel({ model: MODEL, apiKey: API_KEY, ...options });
}

const noCache = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function message(content: object[], stopReason: string | null, usage: object = noCache) {
  return {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

function scripted(answers: (() => Response | Promise<Response>)[]) {
  const sent: unknown[] = [];
  server.use(
    http.post(MESSAGES_URL, async ({ request }) => {
      sent.push(await request.json());
      const answer = answers[sent.length - 1];
      if (!answer) throw new Error(`unexpected request number ${sent.length}`);
      return answer();
    }),
  );
  return sent;
}

const json = (body: unknown, init?: ResponseInit) => () => HttpResponse.json(body as object, init);

describe("Anthropic request and response mapping", () => {
  it("maps a two-step tool loop to the wire and back", async () => {
    const sent = scripted([
      json(
        message(
          [
            { type: "text", text: "Let me check." },
            { type: "tool_use", id: "toolu_01", name: "get_weather", input: { unit: "c", city: "Paris" } },
          ],
          "tool_use",
          { input_tokens: 300, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        ),
      ),
      json(
        message([{ type: "text", text: "18°C and sunny." }], "end_turn", {
          input_tokens: 20,
          output_tokens: 8,
          cache_read_input_tokens: 300,
          cache_creation_input_tokens: 60,
        }),
      ),
    ]);
    const model = anthropic();
    const first: LlmRequest = {
      model: MODEL,
      system: "You are terse.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [weatherTool],
    };
    const step1 = await model.generate(first, call(0));
    expect(step1).toEqual({
      id: "msg_01",
      model: "claude-sonnet-4-5-20250929",
      text: "Let me check.",
      // The tool input's text as the body has it (key order included), not a re-serialisation.
      toolCalls: [{ id: "toolu_01", name: "get_weather", arguments: '{"unit":"c","city":"Paris"}' }],
      stopReason: "tool_calls",
      usage: { inputTokens: 300, outputTokens: 40, cachedInputTokens: 0 },
    });

    const step2 = await model.generate(
      {
        ...first,
        messages: [
          ...first.messages,
          { role: "assistant", content: step1.text, toolCalls: step1.toolCalls },
          { role: "tool", toolCallId: "toolu_01", name: "get_weather", content: '{"celsius":18}', isError: false },
        ],
      },
      call(1),
    );
    // input_tokens counts only what missed the cache: reads and writes are added to it.
    expect(step2).toMatchObject({ text: "18°C and sunny.", toolCalls: [], stopReason: "end", usage: { inputTokens: 380, outputTokens: 8, cachedInputTokens: 300 } });

    const wireTools = [{ name: "get_weather", description: "Current weather for a city", input_schema: weatherTool.parameters }];
    expect(canonicalJson(sent[0])).toBe(
      canonicalJson({ model: MODEL, max_tokens: 4096, system: "You are terse.", messages: [{ role: "user", content: "Weather in Paris?" }], tools: wireTools }),
    );
    expect(canonicalJson(sent[1])).toBe(
      canonicalJson({
        model: MODEL,
        max_tokens: 4096,
        system: "You are terse.",
        messages: [
          { role: "user", content: "Weather in Paris?" },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Let me check." },
              { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris", unit: "c" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: '{"celsius":18}' }] },
        ],
        tools: wireTools,
      }),
    );
  });

  it("groups the results of parallel tool calls into one user message", async () => {
    const sent = scripted([
      json(
        message(
          [
            { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Atlantis" } },
          ],
          "tool_use",
        ),
      ),
      json(message([{ type: "text", text: "Paris is sunny; Atlantis is unknown." }], "end_turn")),
    ]);
    const model = anthropic();
    const request = userRequest(MODEL, "Paris and Atlantis?", { tools: [weatherTool] });
    const first = await model.generate(request, call(0));
    expect(first.toolCalls.map((toolCall) => toolCall.id)).toEqual(["toolu_a", "toolu_b"]);
    await model.generate(
      {
        ...request,
        messages: [
          ...request.messages,
          { role: "assistant", content: "", toolCalls: first.toolCalls },
          { role: "tool", toolCallId: "toolu_a", name: "get_weather", content: "sunny", isError: false },
          { role: "tool", toolCallId: "toolu_b", name: "get_weather", content: "no such city", isError: true },
          { role: "user", content: "Thanks" },
        ],
      },
      call(1),
    );
    expect((sent[1] as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: "Paris and Atlantis?" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Atlantis" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "sunny" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "no such city", is_error: true },
        ],
      },
      { role: "user", content: "Thanks" },
    ]);
  });

  it("sends {} for arguments that are not a JSON object", async () => {
    const sent = scripted([json(message([{ type: "text", text: "ok" }], "end_turn"))]);
    await anthropic().generate(
      {
        ...userRequest(MODEL),
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { id: "toolu_1", name: "get_weather", arguments: '{"city": "Par' },
              { id: "toolu_2", name: "get_weather", arguments: "[1,2]" },
            ],
          },
          { role: "tool", toolCallId: "toolu_1", name: "get_weather", content: "arguments are not valid JSON", isError: true },
          { role: "tool", toolCallId: "toolu_2", name: "get_weather", content: "arguments must be an object", isError: true },
        ],
      },
      call(),
    );
    const assistant = (sent[0] as { messages: { content: { input?: unknown }[] }[] }).messages[1]!;
    expect(assistant.content.map((block) => block.input)).toEqual([{}, {}]);
  });

  it("merges leading system messages into `system` and keeps a later one in place", async () => {
    const sent = scripted([json(message([{ type: "text", text: "ok" }], "end_turn"))]);
    await anthropic().generate(
      {
        model: MODEL,
        system: "Base rules.",
        messages: [
          { role: "system", content: "Project rules." },
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello", toolCalls: [] },
          { role: "system", content: "The user is now in read-only mode." },
          { role: "user", content: "delete it" },
        ],
        tools: [],
      },
      call(),
    );
    expect(sent[0]).toEqual({
      model: MODEL,
      max_tokens: 4096,
      system: "Base rules.\n\nProject rules.",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "system", content: "The user is now in read-only mode." },
        { role: "user", content: "delete it" },
      ],
    });
  });

  it("takes max_tokens from the request, then the config, then 4096", async () => {
    const sent = scripted([json(message([], "end_turn")), json(message([], "end_turn"))]);
    const model = anthropic({ maxTokens: 1000 });
    await model.generate(userRequest(MODEL), call());
    await model.generate(userRequest(MODEL, "hi", { maxTokens: 50 }), call());
    expect(sent.map((body) => (body as { max_tokens: number }).max_tokens)).toEqual([1000, 50]);
  });

  it("refuses a temperature before sending anything, since API version 2026-10-21 rejects it", async () => {
    const sent = scripted([]);
    const error = await expectProviderError(anthropic({ temperature: 0 }).generate(userRequest(MODEL), call()), "bad_request");
    expect(error.message).toContain("temperature");
    await expectProviderError(anthropic().generate(userRequest(MODEL, "hi", { temperature: 0.2 }), call()), "bad_request");
    expect(sent).toHaveLength(0);
  });

  it("maps stop reasons to the closed set", async () => {
    const cases: [string | null, string][] = [
      ["end_turn", "end"],
      ["stop_sequence", "end"],
      ["tool_use", "tool_calls"],
      ["max_tokens", "max_tokens"],
      ["refusal", "content_filter"],
      ["pause_turn", "other"],
      [null, "other"],
    ];
    scripted(cases.map(([reason]) => json(message([{ type: "text", text: "x" }], reason))));
    const model = anthropic();
    for (const [reason, expected] of cases) {
      const response = await model.generate(userRequest(MODEL), call());
      expect({ reason, stopReason: response.stopReason }).toEqual({ reason, stopReason: expected });
    }
  });

  it("ignores content blocks outside the contract, such as thinking", async () => {
    scripted([json(message([{ type: "thinking", thinking: "hmm", signature: "sig" }, { type: "text", text: "Answer." }], "end_turn"))]);
    const response = await anthropic().generate(userRequest(MODEL), call());
    expect(response.text).toBe("Answer.");
  });
});

describe("Anthropic tool arguments are the text the model produced, never re-serialised", () => {
  // JSON.parse + stringify would turn 1.0 into 1, 1E+2 into 100 and round the 20-digit integer:
  // BFCL-style checks tell an int from a float by the text.
  it("streaming: the concatenated input_json_delta fragments, byte for byte", async () => {
    const lines = readWireFixture("anthropic-tool-use-numbers.chunks.jsonl");
    scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(lines), 5)))]);
    const response = await anthropic({ stream: true }).generate(userRequest(MODEL), call());
    expect(response.toolCalls).toEqual([{ id: "toolu_01NumbersStream", name: "compute", arguments: NUMBER_ARGUMENTS }]);
  });

  it("whole response: the input's text in the response body, byte for byte", async () => {
    const body = readWireBody("anthropic-tool-use-numbers.message.json");
    expect(body).toContain(`"input":${NUMBER_ARGUMENTS}`);
    scripted([() => new Response(body, { headers: { "content-type": "application/json" } })]);
    const response = await anthropic().generate(userRequest(MODEL), call());
    expect(response).toMatchObject({
      id: "msg_01Numbers",
      text: "Computing.",
      toolCalls: [{ id: "toolu_01Numbers", name: "compute", arguments: NUMBER_ARGUMENTS }],
      stopReason: "tool_calls",
      usage: { inputTokens: 30, outputTokens: 12, cachedInputTokens: 0 },
    });
  });

  it("whole response: every tool_use block gets its own input text, whatever the key order or spacing", async () => {
    const body = String.raw`{ "usage" : {"output_tokens":3,"input_tokens":4}, "content": [
      {"input": {"a": 1.0}, "type": "tool_use", "name": "f", "id": "toolu_a"},
      {"type": "text", "text": "{\"input\": 2}"},
      {"id": "toolu_b", "type": "tool_use", "name": "g", "input" :  [ 1e5 , "x" ] },
      {"id": "toolu_c", "type": "tool_use", "name": "h", "input": {"s": "\u00e9\"}"}}
    ], "id": "msg_x", "stop_reason": "tool_use" }`;
    scripted([() => new Response(body, { headers: { "content-type": "application/json" } })]);
    const response = await anthropic().generate(userRequest(MODEL), call());
    expect(response.toolCalls.map((toolCall) => toolCall.arguments)).toEqual(['{"a": 1.0}', '[ 1e5 , "x" ]', String.raw`{"s": "\u00e9\"}"}`]);
  });
});

describe("Anthropic streaming", () => {
  it("replays a real captured tool-use stream cut at hostile byte boundaries", async () => {
    const lines = readWireFixture("anthropic-tool-use-quoted-input.chunks.jsonl");
    const sent = scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(lines), 5)))]);
    const deltas: string[] = [];
    const response = await anthropic({ stream: true }).generate(userRequest(MODEL), call(0, { onTextDelta: (text) => deltas.push(text) }));
    const partialJson = lines
      .map((line) => JSON.parse(line) as { delta?: { partial_json?: string } })
      .map((event) => event.delta?.partial_json ?? "")
      .join("");
    expect(response).toEqual({
      id: "msg_011CdFVpY8ZSiJdMWvbXZUUC",
      model: "claude-sonnet-4-5-20250929",
      text: "",
      toolCalls: [{ id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN", name: "website_update", arguments: partialJson }],
      stopReason: "tool_calls",
      usage: { inputTokens: 912, outputTokens: 118, cachedInputTokens: 0 },
    });
    // The escaped quotes survived the split deltas.
    const input = JSON.parse(response.toolCalls[0]!.arguments) as { tasks: { description: string }[] };
    expect(input.tasks[0]!.description).toContain('"What should I do next after this run?"');
    expect(deltas).toEqual([]);
    expect(sent[0]).toMatchObject({ stream: true });
  });

  it("streams text split inside UTF-8 characters to onTextDelta, and a tool without input", async () => {
    const events = [
      { type: "message_start", message: { id: "msg_s", type: "message", role: "assistant", model: MODEL, content: [], usage: { input_tokens: 40, cache_read_input_tokens: 100, cache_creation_input_tokens: 0, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Café ☕ " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "prêt 😀" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_x", name: "list_cities", input: {} } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 25 } },
      { type: "message_stop" },
    ];
    const chunks = hostileChunks(anthropicSse(events), 13);
    expect(splitsACharacter(chunks)).toBe(true);
    scripted([() => sseResponse(streamOf(chunks))]);
    const deltas: string[] = [];
    const response = await anthropic({ stream: true }).generate(userRequest(MODEL), call(0, { onTextDelta: (text) => deltas.push(text) }));
    expect(deltas).toEqual(["Café ☕ ", "prêt 😀"]);
    expect(response).toMatchObject({
      text: "Café ☕ prêt 😀",
      toolCalls: [{ id: "toolu_x", name: "list_cities", arguments: "{}" }],
      stopReason: "tool_calls",
      usage: { inputTokens: 140, outputTokens: 25, cachedInputTokens: 100 },
    });
  });

  it("has unknown usage (null, not 0 tokens) when the stream never reports it", async () => {
    const events = [
      { type: "message_start", message: { id: "msg_u", model: MODEL } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
      { type: "message_delta", delta: { stop_reason: "end_turn" } },
      { type: "message_stop" },
    ];
    scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(events))))]);
    const response = await anthropic({ stream: true }).generate(userRequest(MODEL), call());
    expect(response).toMatchObject({ text: "hi", stopReason: "end", usage: null });
  });

  it("keeps tool input that does not parse (cut at max_tokens) as raw text", async () => {
    const events = [
      { type: "message_start", message: { id: "msg_m", model: MODEL, usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_y", name: "get_weather", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": "Os' } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 4 } },
      { type: "message_stop" },
    ];
    scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(events))))]);
    const response = await anthropic({ stream: true }).generate(userRequest(MODEL), call());
    expect(response.toolCalls).toEqual([{ id: "toolu_y", name: "get_weather", arguments: '{"city": "Os' }]);
    expect(response.stopReason).toBe("max_tokens");
  });

  it("fails a stream that ends before message_stop as cut short", async () => {
    const lines = readWireFixture("anthropic-tool-use-quoted-input.chunks.jsonl");
    scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(lines.slice(0, 9)))))]);
    const error = await expectProviderError(anthropic({ stream: true }).generate(userRequest(MODEL), call()), "invalid_response");
    expect(error.message).toContain("message_stop");
  });

  it("reports an error event inside a stream by its error type", async () => {
    const lines = readWireFixture("anthropic-tool-use-quoted-input.chunks.jsonl");
    const body = anthropicSse(lines.slice(0, 4)) + `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    scripted([() => sseResponse(streamOf(hostileChunks(body)))]);
    const error = await expectProviderError(anthropic({ stream: true }).generate(userRequest(MODEL), call()), "server");
    expect(error.message).toContain("Overloaded");
  });

  it("fails a stream event of the wrong shape, naming it", async () => {
    const body = anthropicSse([
      JSON.stringify({ type: "message_start", message: { id: "m" } }),
      JSON.stringify({ type: "content_block_delta", index: "zero", delta: { type: "text_delta", text: "x" } }),
    ]);
    scripted([() => sseResponse(streamOf(hostileChunks(body)))]);
    const error = await expectProviderError(anthropic({ stream: true }).generate(userRequest(MODEL), call()), "invalid_response");
    expect(error.message).toContain("stream event 2 (content_block_delta)");
    expect(error.message).toContain("index");
  });

  it("times out when a stream stalls", async () => {
    const lines = readWireFixture("anthropic-tool-use-quoted-input.chunks.jsonl");
    scripted([() => sseResponse(streamOf(hostileChunks(anthropicSse(lines.slice(0, 6))), { endless: true }))]);
    await expectProviderError(anthropic({ stream: true, timeoutMs: 200 }).generate(userRequest(MODEL), call()), "timeout");
  });
});

describe("Anthropic errors", () => {
  const failWith = (status: number, type: string, text: string, headers: Record<string, string> = {}) =>
    scripted([() => HttpResponse.json({ type: "error", error: { type, message: text }, request_id: "req_1" }, { status, headers })]);

  it("401 is auth, with the provider's message and never the key, tried once", async () => {
    const sent = failWith(401, "authentication_error", `invalid x-api-key ${API_KEY}`);
    const error = await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "auth");
    expect(error.message).toContain("invalid x-api-key");
    expect(error.provider).toBe("anthropic");
    expect(inspect(error, { depth: 8 })).not.toContain(API_KEY);
    expect(sent).toHaveLength(1);
  });

  it("403 is auth, 404 is not_found naming the model", async () => {
    failWith(403, "permission_error", "Your API key does not have permission to use the specified resource.");
    await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "auth");
    failWith(404, "not_found_error", "model: claude-nonexistent");
    const error = await expectProviderError(anthropic({ model: "claude-nonexistent" }).generate(userRequest("claude-nonexistent"), call()), "not_found");
    expect(error.message).toContain('model "claude-nonexistent"');
    expect(error.message).toContain("may not exist");
  });

  it("400 is bad_request with the provider's message", async () => {
    failWith(400, "invalid_request_error", "messages.1.content.0.tool_use.input: Input should be a valid dictionary");
    const error = await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "bad_request");
    expect(error.message).toContain("Input should be a valid dictionary");
    expect(error.status).toBe(400);
  });

  it("429 is rate_limited with retry-after parsed", async () => {
    const sent = failWith(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "retry-after": "7" });
    const error = await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "rate_limited");
    expect(error.retryAfterMs).toBe(7000);
    expect(sent).toHaveLength(1);
  });

  it("500 and 529 (overloaded) are server errors", async () => {
    failWith(500, "api_error", "Internal server error");
    await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "server");
    failWith(529, "overloaded_error", "Overloaded");
    const error = await expectProviderError(anthropic().generate(userRequest(MODEL), call()), "server");
    expect(error).toMatchObject({ status: 529, retryable: true });
  });

  it("times out when the headers never come", async () => {
    server.use(http.post(MESSAGES_URL, async () => {
      await delay("infinite");
      return HttpResponse.json({});
    }));
    await expectProviderError(anthropic({ timeoutMs: 150 }).generate(userRequest(MODEL), call()), "timeout");
  });

  it("garbage JSON, truncated JSON and a wrong shape are invalid responses", async () => {
    const raw = (body: string) => () => new Response(body, { headers: { "content-type": "application/json" } });
    scripted([raw("}{ not json"), raw('{"id":"msg_1","content":[{"type":"text","text":"hel'), raw('{"id":"msg_1","content":[{"type":"text"}],"stop_reason":"end_turn"}')]);
    const model = anthropic();
    await expectProviderError(model.generate(userRequest(MODEL), call()), "invalid_response");
    const truncated = await expectProviderError(model.generate(userRequest(MODEL), call()), "invalid_response");
    expect(truncated.message).toContain("not valid JSON");
    const wrong = await expectProviderError(model.generate(userRequest(MODEL), call()), "invalid_response");
    expect(wrong.message).toMatch(/content\[0\]|usage/);
  });

  it("an unhandled request (wrong path) fails the call", async () => {
    const unhandled = server.expectUnhandled();
    await expectProviderError(anthropic({ baseUrl: "https://api.anthropic.com/wrong" }).generate(userRequest(MODEL), call()), "connection");
    expect(unhandled).toEqual(["POST https://api.anthropic.com/wrong/v1/messages"]);
  });

  it("a missing key fails before any request", async () => {
    await expectProviderError(anthropic({ apiKey: "" }).generate(userRequest(MODEL), call()), "missing_key");
  });
});
