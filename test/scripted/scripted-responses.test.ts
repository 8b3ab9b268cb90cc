/** What a scripted entry turns into (an answer, tool calls, a typed fault) and when a rule answers. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { ConfigError, ProviderError, ScriptExhaustedError } from "../../src/errors/index.js";
import type { LlmRequest, Message, ScriptInput } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { tempDir } from "../helpers.js";

const first = { callIndex: 0, attempt: 1 };
const ask = (script: ScriptInput, request: LlmRequest, options = first) => new ScriptedModel(script).generate(request, options);
const user = (content: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({ model: "scripted", messages: [{ role: "user", content }], tools: [], ...extra });
const conversation = (messages: Message[], extra: Partial<LlmRequest> = {}): LlmRequest => ({ model: "scripted", messages, tools: [], ...extra });
const fault = async (script: ScriptInput) => {
  const error = await ask(script, user("x")).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
};

describe("a scripted answer", () => {
  it("is the entry's text, from the provider and model 'scripted', ending the turn", async () => {
    const model = new ScriptedModel({ responses: [{ text: "hello" }] });
    expect(model.provider).toBe("scripted");
    expect(model.model).toBe("scripted");
    const response = await model.generate(user("hi"), first);
    expect(response).toMatchObject({ model: "scripted", text: "hello", toolCalls: [], stopReason: "end" });
  });

  it("names the model the script names", () => {
    expect(new ScriptedModel({ model: "gpt-test", responses: [{ text: "x" }] }).model).toBe("gpt-test");
  });

  it("streams its text to onTextDelta, and nothing when it has none", async () => {
    const onTextDelta = vi.fn();
    await ask({ responses: [{ text: "hello" }] }, user("hi"), { ...first, onTextDelta } as never);
    expect(onTextDelta.mock.calls).toEqual([["hello"]]);
    onTextDelta.mockClear();
    await ask({ responses: [{ tool_calls: [{ name: "search" }] }] }, user("hi"), { ...first, onTextDelta } as never);
    expect(onTextDelta).not.toHaveBeenCalled();
  });

  it("keeps tool calls' argument text as written, and writes objects as canonical JSON", async () => {
    const response = await ask(
      { responses: [{ tool_calls: [{ name: "search", arguments: { q: "x", k: 2 } }, { name: "calc", arguments: '{"expression": 1.0' }, { name: "now" }] }] },
      user("x"),
    );
    expect(response.toolCalls).toEqual([
      { id: "call_1_1", name: "search", arguments: '{"k":2,"q":"x"}' },
      { id: "call_1_2", name: "calc", arguments: '{"expression": 1.0' },
      { id: "call_1_3", name: "now", arguments: "{}" },
    ]);
    expect(response).toMatchObject({ text: "", stopReason: "tool_calls" });
  });

  it("numbers tool call ids by the call index and the call's place, unless the script names them", async () => {
    // The run's fifth model call: the four before it took the four entries before this one.
    const earlier = [{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }];
    const response = await ask({ responses: [...earlier, { tool_calls: [{ name: "a" }, { name: "b", id: "mine" }] }] }, user("x"), { callIndex: 4, attempt: 1 });
    expect(response.toolCalls.map((call) => call.id)).toEqual(["call_5_1", "mine"]);
  });

  it("takes the stop reason the script gives", async () => {
    expect((await ask({ responses: [{ text: "cut", stop_reason: "max_tokens" }] }, user("x"))).stopReason).toBe("max_tokens");
  });

  it("reports the usage the script gives", async () => {
    const response = await ask({ responses: [{ text: "x", usage: { input_tokens: 120, output_tokens: 7, cached_input_tokens: 100 } }] }, user("x"));
    expect(response.usage).toEqual({ inputTokens: 120, outputTokens: 7, cachedInputTokens: 100 });
  });

  it("estimates usage as a quarter token per character of everything sent and everything answered", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
        fc.string(),
        fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), arguments: fc.string({ maxLength: 8 }) }), { maxLength: 3 }),
        async (system, questions, text, calls) => {
          const messages: Message[] = questions.map((content) => ({ role: "user", content }));
          const response = await ask({ responses: [{ text, ...(calls.length ? { tool_calls: calls } : {}) }] }, conversation(messages, { system }));
          const sent = system + questions.join("");
          const answered = text + calls.map((call) => call.name + call.arguments).join("");
          expect(response.usage).toEqual({ inputTokens: Math.ceil(sent.length / 4), outputTokens: Math.ceil(answered.length / 4), cachedInputTokens: 0 });
        },
      ),
      { numRuns: 50 },
    );
    expect((await ask({ responses: [{ text: "12345" }] }, user("123456789"))).usage).toEqual({ inputTokens: 3, outputTokens: 2, cachedInputTokens: 0 });
  });
});

describe("a scripted fault", () => {
  it("is a ProviderError of the entry's kind, from the provider 'scripted', with the entry's message", async () => {
    const error = await fault({ responses: [{ error: { kind: "timeout", message: "took too long" } }] });
    expect(error).toMatchObject({ kind: "timeout", provider: "scripted", message: "took too long", status: undefined, retryAfterMs: undefined });
  });

  it("says 'injected provider fault' when the script gives no message", async () => {
    expect((await fault({ responses: [{ error: { status: 500 } }] })).message).toBe("injected provider fault");
  });

  it.each([
    ["auth", 401],
    ["not_found", 404],
    ["bad_request", 400],
    ["rate_limited", 429],
    ["server", 500],
    ["timeout", undefined],
    ["connection", undefined],
    ["invalid_response", undefined],
  ] as const)("of kind %s has the status such a provider error has (%s)", async (kind, status) => {
    expect(await fault({ responses: [{ error: { kind } }] })).toMatchObject({ kind, status });
  });

  it.each([
    [undefined, "server"],
    [400, "bad_request"],
    [401, "auth"],
    [403, "auth"],
    [404, "not_found"],
    [409, "bad_request"],
    [429, "rate_limited"],
    [499, "bad_request"],
    [500, "server"],
    [503, "server"],
  ] as const)("with status %s and no kind is of kind %s", async (status, kind) => {
    const error = await fault({ responses: [{ error: status === undefined ? {} : { status } }] });
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status ?? 500);
  });

  it("keeps a status the script gives over the kind's usual one, and the retry-after delay", async () => {
    expect(await fault({ responses: [{ error: { kind: "server", status: 503, retry_after_ms: 1500 } }] })).toMatchObject({ kind: "server", status: 503, retryAfterMs: 1500 });
  });
});

describe("a rule", () => {
  const tool = (name: string, content: string): Message[] => [
    { role: "assistant", content: "", toolCalls: [{ id: `c_${name}`, name, arguments: "{}" }] },
    { role: "tool", toolCallId: `c_${name}`, name, content, isError: false },
  ];
  const answered = async (when: Record<string, unknown>, request: LlmRequest) => {
    const response = await ask({ rules: [{ when, respond: { text: "by the rule" } }], responses: [{ text: "in order" }, { text: "in order" }] }, request, {
      callIndex: request.messages.filter((message) => message.role === "assistant").length,
      attempt: 1,
    });
    return response.text === "by the rule";
  };

  it("user_contains holds when the last user message contains the text, ignoring case", async () => {
    expect(await answered({ user_contains: "weather" }, user("What's the WEATHER?"))).toBe(true);
    expect(await answered({ user_contains: "weather" }, user("What time is it?"))).toBe(false);
    expect(await answered({ user_contains: "weather" }, conversation([{ role: "user", content: "weather?" }, ...tool("search", "sunny")]))).toBe(true);
    expect(await answered({ user_contains: "weather" }, conversation([]))).toBe(false);
  });

  it("last_message_contains looks at the last message only, whoever wrote it", async () => {
    expect(await answered({ last_message_contains: "42" }, conversation([{ role: "user", content: "go" }, ...tool("calc", "42")]))).toBe(true);
    expect(await answered({ last_message_contains: "go" }, conversation([{ role: "user", content: "go" }, ...tool("calc", "42")]))).toBe(false);
  });

  it("last_message_contains does not hold in an empty conversation", async () => {
    expect(await answered({ last_message_contains: "x" }, conversation([]))).toBe(false);
  });

  it("tool_result_contains looks at the latest tool result", async () => {
    const messages = [{ role: "user" as const, content: "go" }, ...tool("search", "found: retrace docs"), ...tool("calc", "4")];
    expect(await answered({ tool_result_contains: "4" }, conversation(messages))).toBe(true);
    expect(await answered({ tool_result_contains: "RETRACE" }, conversation(messages))).toBe(false);
    expect(await answered({ tool_result_contains: "x" }, user("no tool ran"))).toBe(false);
  });

  it("after_tool holds right after a result of that tool only", async () => {
    expect(await answered({ after_tool: "calc" }, conversation([{ role: "user", content: "go" }, ...tool("calc", "4")]))).toBe(true);
    expect(await answered({ after_tool: "calc" }, conversation([{ role: "user", content: "go" }, ...tool("search", "4")]))).toBe(false);
    expect(await answered({ after_tool: "calc" }, conversation([{ role: "user", content: "go" }, ...tool("calc", "4"), { role: "user", content: "calc" }]))).toBe(false);
    expect(await answered({ after_tool: "calc" }, conversation([]))).toBe(false);
  });

  it("system_contains looks at the system prompt, and fails without one", async () => {
    expect(await answered({ system_contains: "pirate" }, user("hi", { system: "Talk like a Pirate." }))).toBe(true);
    expect(await answered({ system_contains: "pirate" }, user("hi", { system: "Be formal." }))).toBe(false);
    expect(await answered({ system_contains: "pirate" }, user("hi"))).toBe(false);
  });

  it("step holds on the model call that many answers into the conversation", async () => {
    expect(await answered({ step: 1 }, user("hi"))).toBe(true);
    expect(await answered({ step: 2 }, user("hi"))).toBe(false);
    const second = conversation([{ role: "user", content: "go" }, ...tool("calc", "4")]);
    expect(await answered({ step: 2 }, second)).toBe(true);
    expect(await answered({ step: 1 }, second)).toBe(false);
  });

  it("with several conditions, answers only when all hold", async () => {
    const when = { user_contains: "weather", system_contains: "pirate" };
    expect(await answered(when, user("weather?", { system: "pirate" }))).toBe(true);
    expect(await answered(when, user("weather?", { system: "formal" }))).toBe(false);
    expect(await answered(when, user("time?", { system: "pirate" }))).toBe(false);
  });

  it("answers at most `times` times in a conversation, then the next rule or the ordered responses do", async () => {
    const model = new ScriptedModel({
      rules: [
        { when: { user_contains: "x" }, respond: { text: "rule 1" }, times: 2 },
        { when: { user_contains: "x" }, respond: { text: "rule 2" } },
      ],
      responses: [{ text: "ordered" }],
    });
    const messages: Message[] = [];
    const got: string[] = [];
    for (let call = 0; call < 4; call++) {
      messages.push({ role: "user", content: "x" });
      const response = await model.generate(conversation([...messages]), { callIndex: call, attempt: 1 });
      got.push(response.text);
      messages.push({ role: "assistant", content: response.text, toolCalls: [] });
    }
    expect(got).toEqual(["rule 1", "rule 1", "rule 2", "rule 2"]);
  });
});

describe("a script that runs out", () => {
  it("says which call had no answer, what the script holds and the last message", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }] });
    const request = conversation([
      { role: "user", content: "a" },
      { role: "assistant", content: "one", toolCalls: [] },
      { role: "user", content: "b" },
    ]);
    await expect(model.generate(request, { callIndex: 1, attempt: 1 })).rejects.toThrow(
      new ScriptExhaustedError('script exhausted: model call #2 has no scripted response (the script holds 1 response(s)); the last message was user: "b"'),
    );
  });

  it("counts the rules too, none of which matched", async () => {
    const model = new ScriptedModel({ rules: [{ when: { user_contains: "never" }, respond: { text: "x" } }], responses: [] });
    await expect(model.generate(user("b"), first)).rejects.toThrow(
      "script exhausted: model call #1 has no scripted response (the script holds 0 response(s) and 1 rule(s), none matching); the last message was user: \"b\"",
    );
  });

  it("shows a long last message cut to 77 characters, and none when there is none", async () => {
    const model = new ScriptedModel({ rules: [{ when: { user_contains: "never" }, respond: { text: "x" } }] });
    const long = "x".repeat(81);
    await expect(model.generate(user(long), first)).rejects.toThrow(`the last message was user: "${"x".repeat(77)}..."`);
    await expect(model.generate(user("y".repeat(80)), first)).rejects.toThrow(`the last message was user: "${"y".repeat(80)}"`);
    await expect(model.generate(conversation([]), first)).rejects.toThrow("the last message was (none)");
  });

  it("names the script file it came from", async () => {
    const dir = tempDir();
    const file = join(dir, "mock.yaml");
    writeFileSync(file, "responses:\n  - text: hello\n");
    const model = ScriptedModel.fromFile(file);
    expect(model.source).toBe(file);
    const error = await model
      .generate(conversation([{ role: "user", content: "a" }, { role: "assistant", content: "hello", toolCalls: [] }, { role: "user", content: "b" }]), { callIndex: 1, attempt: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect((error as ScriptExhaustedError).place).toEqual({ file });
    const inline = await new ScriptedModel({ responses: [] , rules: [{ when: { step: 9 }, respond: { text: "x" } }] }).generate(user("a"), first).catch((caught: unknown) => caught);
    expect((inline as ScriptExhaustedError).place).toEqual({});
  });
});

describe("a script file or object that is not valid", () => {
  it("is refused when the file is missing, naming it a mock script", () => {
    const file = join(tempDir(), "missing.yaml");
    const error = (() => {
      try {
        ScriptedModel.fromFile(file);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ message: "mock script not found", place: { file } });
  });

  it.each([
    ["a tool call without a name", { responses: [{ tool_calls: [{ name: "" }] }] }],
    ["a tool call with an empty id", { responses: [{ tool_calls: [{ name: "a", id: "" }] }] }],
    ["an unknown fault kind", { responses: [{ error: { kind: "teapot" } }] }],
    ["an unknown key in usage", { responses: [{ text: "x", usage: { tokens: 3 } }] }],
  ])("is refused for %s", (_name, script) => {
    expect(() => new ScriptedModel(script as never)).toThrow(ConfigError);
  });

  it("is refused when two tool calls of one response share an id, naming the place", () => {
    const attempt = () => new ScriptedModel({ responses: [{ tool_calls: [{ name: "a", id: "same" }, { name: "b", id: "same" }] }] });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(expect.objectContaining({ message: "tool call ids must be unique within a response", place: { path: "responses[0].tool_calls" } }));
  });

  it("accepts tool calls without ids, or with distinct ones", () => {
    expect(() => new ScriptedModel({ responses: [{ tool_calls: [{ name: "a" }, { name: "b" }, { name: "c", id: "x" }, { name: "d", id: "y" }] }] })).not.toThrow();
  });

  it("accepts every fault kind a provider error has", () => {
    for (const kind of ["auth", "not_found", "bad_request", "rate_limited", "server", "timeout", "connection", "invalid_response"] as const) {
      expect(() => new ScriptedModel({ responses: [{ error: { kind } }] })).not.toThrow();
    }
  });

  it("accepts a script of rules only, with no ordered responses", () => {
    expect(new ScriptedModel({ rules: [{ when: { step: 1 }, respond: { text: "x" } }] }).script.responses).toEqual([]);
  });
});

describe("responses a run left unused", () => {
  const long = "x".repeat(41);
  const script = {
    responses: [
      { text: "first" },
      { text: long },
      { tool_calls: [{ name: "search" }, { name: "read" }] },
      { text: "with a call", tool_calls: [{ name: "write" }] },
      { error: { kind: "timeout" as const } },
      { error: { status: 503 } },
      { error: {} },
    ],
  };

  it("are listed in order with a preview of each", async () => {
    const model = new ScriptedModel(script);
    await model.generate(user("x"), first);
    expect(model.unused()).toEqual([
      { index: 1, preview: `text "${"x".repeat(37)}..."` },
      { index: 2, preview: "calls search, read" },
      { index: 3, preview: 'text "with a call", calls write' },
      { index: 4, preview: "error timeout" },
      { index: 5, preview: "error 503" },
      { index: 6, preview: "error server" },
    ]);
    expect(new ScriptedModel({ responses: [{ text: "x".repeat(40) }] }).unused()).toEqual([{ index: 0, preview: `text "${"x".repeat(40)}"` }]);
  });

  it("fail the case naming the first three and how many more, unless the script allows them", async () => {
    const model = new ScriptedModel(script, "mocks/agent.yaml");
    await model.generate(user("x"), first);
    expect(model.unusedProblem()).toBe(
      `the mock script mocks/agent.yaml has 6 unused response(s): #2 text "${"x".repeat(37)}..."; #3 calls search, read; #4 text "with a call", calls write; and 3 more; ` +
        "the agent stopped before the script expected (set allow_unused: true in the script if they are spare on purpose)",
    );
    const three = new ScriptedModel({ responses: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    expect(three.unusedProblem()).toBe(
      'the mock script has 3 unused response(s): #1 text "a"; #2 text "b"; #3 text "c"; the agent stopped before the script expected (set allow_unused: true in the script if they are spare on purpose)',
    );
    expect(new ScriptedModel({ ...script, allow_unused: true }).unusedProblem()).toBeUndefined();
    const used = new ScriptedModel({ responses: [{ text: "only" }] });
    await used.generate(user("x"), first);
    expect(used.unusedProblem()).toBeUndefined();
  });
});
