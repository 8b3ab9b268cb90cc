/**
 * A turn's cancellation makes its AbortSignal only when something takes it: Node's controllers
 * are slow to make, and a scripted model never reads one. What reads it gets the turn's own
 * signal, aborted with the turn.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentRun, LazyAbort, subAgentTool } from "../../src/agent/index.js";
import type { AnyTool } from "../../src/tools/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse } from "../../src/contracts/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, testContext } from "../helpers.js";

/** Counts the AbortControllers made while a test runs. */
function countControllers(): { made: number } {
  const count = { made: 0 };
  const Real = globalThis.AbortController;
  vi.stubGlobal(
    "AbortController",
    class extends Real {
      constructor() {
        super();
        count.made++;
      }
    },
  );
  return count;
}

afterEach(() => vi.unstubAllGlobals());

/** A model that keeps the signal it was given, and answers. */
class SignalReader implements LanguageModel {
  readonly provider = "test";
  readonly model = "reader";
  seen: AbortSignal | undefined;
  async generate(_request: LlmRequest, options: GenerateOptions): Promise<LlmResponse> {
    this.seen = options.signal;
    return { text: "ok", toolCalls: [], stopReason: "end", usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } };
  }
}

describe("a turn's cancellation", () => {
  it("shows an abort made before or after its signal was asked for", () => {
    const early = new LazyAbort();
    early.abort();
    expect([early.aborted, early.signal.aborted]).toEqual([true, true]);
    const late = new LazyAbort();
    const signal = late.signal;
    expect([late.aborted, signal.aborted]).toEqual([false, false]);
    late.abort();
    expect([late.aborted, signal.aborted, late.signal === signal]).toEqual([true, true, true]);
  });

  it("makes no AbortController for a turn whose model never reads the signal", async () => {
    const count = countControllers();
    const run = AgentRun.start(scriptedAgent({ responses: [{ text: "hi" }] }), { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("hello", { cancellation: new LazyAbort() })).status).toBe("completed");
    expect((await AgentRun.start(scriptedAgent({ responses: [{ text: "hi" }] }), { store: new MemoryRunStore(), context: testContext() }).send("hello")).status).toBe("completed");
    expect(count.made).toBe(0);
  });

  it("hands a model that reads it the turn's signal, which aborts with the turn", async () => {
    const model = new SignalReader();
    const cancel = new LazyAbort();
    const run = AgentRun.start(scriptedAgent({ responses: [] }, { model }), { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("hello", { cancellation: cancel })).status).toBe("completed");
    expect(model.seen).toBe(cancel.signal);
    cancel.abort();
    expect(model.seen?.aborted).toBe(true);
    const given = new AbortController().signal;
    const again = AgentRun.start(scriptedAgent({ responses: [] }, { model }), { store: new MemoryRunStore(), context: testContext() });
    await again.send("hello", { signal: given });
    expect(model.seen).toBe(given);
  });

  it("lets a model put a signal of its own in the options' place: found in review", async () => {
    class OwnSignal extends SignalReader {
      override async generate(request: LlmRequest, options: GenerateOptions): Promise<LlmResponse> {
        options.signal = AbortSignal.any([options.signal as AbortSignal, new AbortController().signal]);
        return super.generate(request, options);
      }
    }
    const model = new OwnSignal();
    const cancel = new LazyAbort();
    const run = AgentRun.start(scriptedAgent({ responses: [] }, { model }), { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("hello", { cancellation: cancel })).status).toBe("completed");
    expect(model.seen).not.toBe(cancel.signal);
    cancel.abort();
    expect(model.seen?.aborted).toBe(true);
  });

  it("reaches a sub-agent's model: the child's turn is cancelled with its parent's", async () => {
    const model = new SignalReader();
    const child = scriptedAgent({ responses: [] }, { name: "helper-agent", model, tools: [] });
    const parent = scriptedAgent({ responses: [{ tool_calls: [{ name: "helper", arguments: { task: "look" } }] }, { text: "done" }] }, { tools: [subAgentTool("helper", child)] as AnyTool[] });
    const cancel = new LazyAbort();
    const run = AgentRun.start(parent, { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("hello", { cancellation: cancel })).status).toBe("completed");
    expect(model.seen).toBe(cancel.signal);
    cancel.abort();
    expect(model.seen?.aborted).toBe(true);
  });

  it("refuses a turn given both a signal and a cancellation", async () => {
    const run = AgentRun.start(scriptedAgent({ responses: [{ text: "hi" }] }), { store: new MemoryRunStore(), context: testContext() });
    await expect(run.send("hello", { signal: new AbortController().signal, cancellation: new LazyAbort() })).rejects.toThrow("not both");
    expect(run.log.events.map((event) => event.type)).toEqual(["run.started"]);
  });

  it("fails a turn whose cancellation was aborted before it began, without calling the model", async () => {
    const model = new SignalReader();
    const cancel = new LazyAbort();
    cancel.abort();
    const run = AgentRun.start(scriptedAgent({ responses: [] }, { model }), { store: new MemoryRunStore(), context: testContext() });
    const outcome = await run.send("hello", { cancellation: cancel });
    expect(outcome).toMatchObject({ status: "failed", error: { code: "aborted" } });
    expect(model.seen).toBeUndefined();
  });
});
