import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, ProviderError, ScriptExhaustedError } from "../../src/errors/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { type LlmRequest } from "../../src/contracts/index.js";
import { tempDir } from "../helpers.js";

const request = (content: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "scripted",
  messages: [{ role: "user", content }],
  tools: [],
  ...extra,
});

/** A request after `answers` earlier answers of the model in the same conversation. */
const after = (answers: string[], content: string): LlmRequest => ({
  model: "scripted",
  messages: [
    ...answers.flatMap((answer, index) => [
      { role: "user" as const, content: `turn ${index + 1}` },
      { role: "assistant" as const, content: answer, toolCalls: [] },
    ]),
    { role: "user", content },
  ],
  tools: [],
});

describe("ScriptedModel", () => {
  it("answers ordered responses in turn and then refuses, saying so", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }, { text: "two" }] });
    expect((await model.generate(request("a"), { callIndex: 0, attempt: 1 })).text).toBe("one");
    expect((await model.generate(after(["one"], "b"), { callIndex: 1, attempt: 1 })).text).toBe("two");
    await expect(model.generate(after(["one", "two"], "c"), { callIndex: 2, attempt: 1 })).rejects.toThrow(ScriptExhaustedError);
    await expect(model.generate(after(["one", "two"], "c"), { callIndex: 2, attempt: 1 })).rejects.toThrow(
      /model call #3 .* holds 2 response\(s\).*user: "c"/,
    );
  });

  it("derives its place from the conversation, so conversations sharing one model do not interfere", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }, { text: "two" }] });
    expect((await model.generate(request("first conversation"), { callIndex: 0, attempt: 1 })).text).toBe("one");
    expect((await model.generate(request("second conversation"), { callIndex: 0, attempt: 1 })).text).toBe("one");
    expect(model.unusedResponses).toBe(1);
  });

  it("skips the faults a failed attempt already consumed", async () => {
    const model = new ScriptedModel({ responses: [{ error: { status: 429 } }, { text: "after the retry" }] });
    await expect(model.generate(request("x"), { callIndex: 0, attempt: 1 })).rejects.toThrow(ProviderError);
    expect((await model.generate(request("x"), { callIndex: 1, attempt: 2 })).text).toBe("after the retry");
  });

  it("gives every tool call a unique id within a run", async () => {
    const model = new ScriptedModel({
      responses: [{ tool_calls: [{ name: "a" }, { name: "b" }] }, { tool_calls: [{ name: "a" }] }],
    });
    const first = await model.generate(request("x"), { callIndex: 0, attempt: 1 });
    const second = await model.generate(after([""], "x"), { callIndex: 1, attempt: 1 });
    const ids = [...first.toolCalls, ...second.toolCalls].map((call) => call.id);
    expect(new Set(ids).size).toBe(3);
    expect(first.stopReason).toBe("tool_calls");
  });

  it("continues where a conversation stands, so a resumed run does not restart the script", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }, { text: "two" }] });
    expect((await model.generate(after(["one"], "x"), { callIndex: 1, attempt: 1 })).text).toBe("two");
  });

  it("matches rules on the request before ordered responses, honouring times", async () => {
    const model = new ScriptedModel({
      rules: [
        { when: { user_contains: "weather" }, respond: { text: "sunny" }, times: 1 },
        { when: { after_tool: "calc" }, respond: { text: "computed" } },
      ],
      responses: [{ text: "fallback" }],
    });
    expect((await model.generate(request("What's the WEATHER?"), { callIndex: 0, attempt: 1 })).text).toBe("sunny");
    // The rule's one use went to the earlier answer in this conversation.
    const again: LlmRequest = {
      ...request("x"),
      messages: [
        { role: "user", content: "What's the WEATHER?" },
        { role: "assistant", content: "sunny", toolCalls: [] },
        { role: "user", content: "weather again" },
      ],
    };
    expect((await model.generate(again, { callIndex: 1, attempt: 1 })).text).toBe("fallback");
    const afterTool = request("x", {
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "calc", arguments: "{}" }] },
        { role: "tool", toolCallId: "c1", name: "calc", content: "4", isError: false },
      ],
    });
    expect((await model.generate(afterTool, { callIndex: 1, attempt: 1 })).text).toBe("computed");
  });

  it("injects provider faults as typed errors", async () => {
    const model = new ScriptedModel({ responses: [{ error: { status: 429, retry_after_ms: 2000 } }] });
    const error = await model.generate(request("x"), { callIndex: 0, attempt: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryAfterMs: 2000, retryable: true });
  });

  it("rejects a malformed script with the path of the problem", () => {
    expect(() => new ScriptedModel({ responses: [{}] } as never)).toThrow(/a response needs text, tool_calls or error/);
    expect(() => new ScriptedModel({ responses: [{ txt: "x" }] } as never)).toThrow(ConfigError);
  });

  it("loads a YAML script file and names the file in errors", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "ok.yaml"), "responses:\n  - text: hello\n");
    expect(ScriptedModel.fromFile(join(dir, "ok.yaml")).script.responses).toHaveLength(1);
    writeFileSync(join(dir, "bad.yaml"), "responses:\n  - text: [\n");
    expect(() => ScriptedModel.fromFile(join(dir, "bad.yaml"))).toThrow(/malformed YAML/);
  });

  it("estimates usage deterministically when the script gives none", async () => {
    const model = new ScriptedModel({ responses: [{ text: "12345678" }] });
    const response = await model.generate(request("abcd"), { callIndex: 0, attempt: 1 });
    expect(response.usage).toEqual({ inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 });
  });
});

describe("ScriptedModel: empty scripts and unused responses", () => {
  it("accepts an empty script, which says the model must not be called, and says so when it is", async () => {
    const model = new ScriptedModel({ responses: [] });
    expect(model.unused()).toEqual([]);
    expect(model.unusedProblem()).toBeUndefined();
    const error = await model.generate(request("hi"), { callIndex: 0, attempt: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect((error as Error).message).toMatch(/script exhausted: model call #1 .*the script is empty \(responses: \[\]\).*must not be called/);
  });

  it("loads an empty script from YAML", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "empty.yaml"), "responses: []\n");
    expect(ScriptedModel.fromFile(join(dir, "empty.yaml")).script.responses).toEqual([]);
  });

  it("lists the responses no run reached, with their index and a preview", async () => {
    const model = new ScriptedModel({
      responses: [{ text: "one" }, { tool_calls: [{ name: "write_file" }] }, { error: { status: 500 } }, { text: "four" }],
    });
    expect(model.unused().map((item) => item.index)).toEqual([0, 1, 2, 3]);
    await model.generate(request("a"), { callIndex: 0, attempt: 1 });
    expect(model.unused()).toEqual([
      { index: 1, preview: "calls write_file" },
      { index: 2, preview: "error 500" },
      { index: 3, preview: 'text "four"' },
    ]);
    expect(model.unusedResponses).toBe(3);
    expect(model.unusedProblem()).toMatch(/has 3 unused response\(s\): #2 calls write_file; #3 error 500; #4 text "four"; the agent stopped before/);
  });

  it("allow_unused: true makes spare responses no problem", async () => {
    const model = new ScriptedModel({ responses: [{ text: "one" }, { text: "spare" }], allow_unused: true });
    await model.generate(request("a"), { callIndex: 0, attempt: 1 });
    expect(model.allowsUnused).toBe(true);
    expect(model.unused()).toHaveLength(1);
    expect(model.unusedProblem()).toBeUndefined();
  });
});
