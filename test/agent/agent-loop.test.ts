import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { MemoryRunStore, SqliteRunStore } from "../../src/store/index.js";
import { runOnce, scriptedAgent, tempDir } from "../helpers.js";

const types = (events: readonly RunEvent[]) => events.map((event) => event.type);
const ofType = <T extends RunEvent["type"]>(events: readonly RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

describe("the agent loop", () => {
  it("runs a tool call and answers, writing every step to the log", async () => {
    const { outcome, events } = await runOnce(
      { responses: [{ tool_calls: [{ name: "echo", arguments: { text: "hi" } }] }, { text: "done: hi" }] },
      "say hi",
    );
    expect(outcome).toMatchObject({ status: "completed", output: "done: hi" });
    expect(types(events)).toEqual([
      "run.started",
      "message",
      "llm.started",
      "llm.finished",
      "tool.requested",
      "tool.started",
      "tool.finished",
      "llm.started",
      "llm.finished",
      "run.finished",
    ]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(ofType(events, "tool.finished")[0]?.result).toEqual({ echoed: "hi" });
    // The second request carries the full history, including the tool result as the model saw it.
    const second = ofType(events, "llm.started")[1]?.request;
    expect(second?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(second?.messages[2]).toMatchObject({ role: "tool", content: '{"echoed":"hi"}', isError: false });
    expect(second?.system).toBe("You are a test agent.");
    expect(second?.tools.map((tool) => tool.name)).toEqual(["echo", "boom", "sleep"]);
  });

  it("stamps events with the run clock, not the wall clock", async () => {
    const { events } = await runOnce({ responses: [{ text: "ok" }] }, "hi");
    expect(events[0]?.at).toBe("2026-01-01T00:00:00.000Z");
    expect(events.every((event) => event.at.startsWith("2026-01-01T00:00:00"))).toBe(true);
  });

  it("writes parallel results in call order, whichever finished first", async () => {
    const { events } = await runOnce(
      {
        responses: [
          {
            tool_calls: [
              { name: "sleep", arguments: { ms: 40, label: "slow" } },
              { name: "sleep", arguments: { ms: 1, label: "fast" } },
              { name: "echo", arguments: { text: "instant" } },
            ],
          },
          { text: "all done" },
        ],
      },
      "go",
    );
    const finished = ofType(events, "tool.finished");
    expect(finished.map((event) => event.callId)).toEqual(["call_1_1", "call_1_2", "call_1_3"]);
    expect(finished.map((event) => event.result)).toEqual(["slow", "fast", { echoed: "instant" }]);
    // Every start marker precedes every outcome: the batch ran concurrently.
    const firstFinish = types(events).indexOf("tool.finished");
    expect(types(events).lastIndexOf("tool.started")).toBeLessThan(firstFinish);
  });

  it("turns an unknown tool into tool.failed(unknown_tool) that the model sees", async () => {
    const { outcome, events } = await runOnce(
      { responses: [{ tool_calls: [{ name: "teleport", arguments: {} }] }, { text: "sorry" }] },
      "go",
    );
    expect(outcome.status).toBe("completed");
    const failed = ofType(events, "tool.failed")[0];
    expect(failed?.error.kind).toBe("unknown_tool");
    expect(failed?.error.message).toContain('no tool named "teleport"');
    expect(types(events)).not.toContain("tool.started");
    const told = ofType(events, "llm.started")[1]?.request.messages.at(-1);
    expect(told).toMatchObject({ role: "tool", isError: true });
    expect(told?.content).toMatch(/^Error \(unknown_tool\)/);
  });

  it("turns arguments that fail the schema into tool.failed(invalid_arguments) naming the field", async () => {
    const { events } = await runOnce(
      { responses: [{ tool_calls: [{ name: "echo", arguments: { text: 42 } }] }, { text: "ok" }] },
      "go",
    );
    const failed = ofType(events, "tool.failed")[0];
    expect(failed?.error.kind).toBe("invalid_arguments");
    expect(failed?.error.message).toMatch(/^text: /);
  });

  it("turns malformed argument JSON into tool.failed(invalid_arguments) and keeps the raw text", async () => {
    const { events } = await runOnce(
      { responses: [{ tool_calls: [{ name: "echo", arguments: '{"text": "unterminated' }] }, { text: "ok" }] },
      "go",
    );
    expect(ofType(events, "tool.requested")[0]?.rawArgs).toBe('{"text": "unterminated');
    expect(ofType(events, "tool.failed")[0]?.error).toMatchObject({ kind: "invalid_arguments" });
  });

  it("turns arguments the log cannot store (a number beyond a double) into tool.failed, in SQLite too, and the run goes on", async () => {
    const store = new SqliteRunStore(join(tempDir(), "runs.db"));
    const { outcome, events } = await runOnce(
      { responses: [{ tool_calls: [{ name: "echo", arguments: '{"text": 1e400}' }] }, { text: "ok" }] },
      "go",
      {},
      store,
    );
    expect(outcome.status).toBe("completed");
    expect(ofType(events, "tool.requested")[0]?.rawArgs).toBe('{"text": 1e400}');
    expect(ofType(events, "tool.failed")[0]?.error).toEqual({
      kind: "invalid_arguments",
      message: expect.stringMatching(/^arguments hold a value the log cannot store \(.*Infinity.*\): \{"text": 1e400\}$/),
    });
    expect(store.readRaw(outcome.runId).length).toBe(events.length);
  });

  it("turns a tool that throws into tool.failed(threw) with its message", async () => {
    const { outcome, events } = await runOnce({ responses: [{ tool_calls: [{ name: "boom" }] }, { text: "it failed" }] }, "go");
    expect(outcome.status).toBe("completed");
    const failed = ofType(events, "tool.failed")[0];
    expect(failed?.error).toEqual({ kind: "threw", message: "the disk is on fire" });
    expect(types(events)).toContain("tool.started");
  });

  it("fails loudly when the script runs out — never a silent success", async () => {
    const { outcome, events } = await runOnce({ responses: [{ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }] }, "go");
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("script_exhausted");
    expect(outcome.error?.message).toMatch(/script exhausted: model call #2/);
    expect(events.at(-1)).toMatchObject({ type: "run.finished", status: "failed" });
    expect(ofType(events, "llm.failed")[0]?.retryInMs).toBeNull();
  });

  it("stops at the step limit with a max_steps failure", async () => {
    const loop = { rules: [{ when: {}, respond: { tool_calls: [{ name: "echo", arguments: { text: "again" } }] } }] };
    const { outcome, events } = await runOnce(loop, "loop forever", { maxSteps: 3 });
    expect(outcome.error?.code).toBe("max_steps");
    expect(ofType(events, "llm.finished")).toHaveLength(3);
  });

  it("retries a 429, honouring retry-after on the run clock, and logs every attempt", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const agent = scriptedAgent({
      responses: [{ error: { status: 429, message: "slow down", retry_after_ms: 1500 } }, { error: { status: 503 } }, { text: "finally" }],
    });
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: createRunContext({ clock, ids: sequentialIds() }) });
    const outcome = await run.send("hi");
    expect(outcome).toMatchObject({ status: "completed", output: "finally" });
    const failures = ofType(run.log.events, "llm.failed");
    expect(failures.map((event) => [event.attempt, event.error.kind, event.retryInMs])).toEqual([
      [1, "rate_limited", 1500],
      [2, "server", expect.any(Number)],
    ]);
    expect(clock.slept[0]).toBe(1500);
    expect(ofType(run.log.events, "llm.finished")[0]?.attempt).toBe(3);
  });

  it("gives up after max retries with the provider's error", async () => {
    const { outcome, events } = await runOnce(
      { responses: [{ error: { status: 500, message: "boom" } }, { error: { status: 500, message: "boom" } }] },
      "hi",
      { maxRetries: 1 },
    );
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toEqual({ code: "provider_server", message: "boom" });
    expect(ofType(events, "llm.failed").map((event) => event.retryInMs === null)).toEqual([false, true]);
  });

  it("does not retry a 401", async () => {
    const { outcome, events } = await runOnce({ responses: [{ error: { status: 401, message: "bad key" } }, { text: "never" }] }, "hi");
    expect(outcome.error?.code).toBe("provider_auth");
    expect(ofType(events, "llm.failed")).toHaveLength(1);
  });

  it("after a turn that failed on faults, the next turn gets the next scripted answer", async () => {
    const script = { responses: [{ error: { status: 500, message: "down" } }, { error: { status: 500, message: "still down" } }, { text: "back up" }] };
    const context = () => createRunContext({ clock: manualClock(), ids: sequentialIds() });
    const run = AgentRun.start(scriptedAgent(script, { maxRetries: 1 }), { store: new MemoryRunStore(), context: context() });
    expect((await run.send("one")).status).toBe("failed");
    // A fresh model, as after a restart: its place in the script comes from the log alone.
    const resumed = AgentRun.open(scriptedAgent(script, { maxRetries: 1 }), run.runId, { store: run.log.store, context: context() });
    expect(await resumed.send("two")).toMatchObject({ status: "completed", output: "back up" });
  });

  it("continues a conversation over several turns in one run", async () => {
    const agent = scriptedAgent({ responses: [{ text: "first answer" }, { text: "second answer" }] });
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: createRunContext({ ids: sequentialIds() }) });
    expect((await run.send("one")).output).toBe("first answer");
    const second = await run.send("two");
    expect(second.output).toBe("second answer");
    const lastRequest = ofType(run.log.events, "llm.started").at(-1)?.request;
    expect(lastRequest?.messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "one"],
      ["assistant", "first answer"],
      ["user", "two"],
    ]);
  });

  it("records the same log for the same script, seed and clock", async () => {
    const script = { responses: [{ tool_calls: [{ name: "echo", arguments: { text: "a" } }, { name: "boom" }] }, { text: "ok" }] };
    const a = await runOnce(script, "go");
    const b = await runOnce(script, "go");
    expect(JSON.stringify(a.events)).toBe(JSON.stringify(b.events));
  });

  it("a result canonical JSON cannot carry becomes tool.failed(invalid_result)", async () => {
    const { defineTool } = await import("../../src/tools/index.js");
    const { z } = await import("zod");
    const nan = defineTool({ name: "nan", description: "returns NaN", input: z.object({}), run: () => ({ value: Number.NaN }) });
    const { events } = await runOnce({ responses: [{ tool_calls: [{ name: "nan" }] }, { text: "ok" }] }, "go", { tools: [nan] });
    expect(ofType(events, "tool.failed")[0]?.error.kind).toBe("invalid_result");
  });
});
