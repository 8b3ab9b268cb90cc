/**
 * Resume semantics, in process: an unknown outcome pauses for a person and the decision is
 * honoured; tools that hang time out; what a tool does after its call returned never reaches
 * the log; attempts continue from the log after a kill during a retry's backoff.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { UNKNOWN_OUTCOME_SKIPPED } from "../../src/journal/index.js";
import { MemoryRunStore, RunLog } from "../../src/store/index.js";
import { defineTool, type AnyTool } from "../../src/tools/index.js";
import { echoTool, scriptedAgent, testContext } from "../helpers.js";

function chargeTool(effects: string[]) {
  return defineTool({
    name: "charge",
    description: "Not idempotent.",
    input: z.object({ amount: z.number() }),
    run: ({ amount }, context) => {
      effects.push(context.callId);
      return { charged: amount };
    },
  });
}

const script = { responses: [{ tool_calls: [{ id: "c1", name: "charge", arguments: { amount: 5 } }] }, { text: "done" }] };

/** The log of a run killed while `charge` ran: its start marker is there, its outcome is not. */
async function killedDuringCharge(): Promise<MemoryRunStore> {
  const full = new MemoryRunStore();
  await AgentRun.start(scriptedAgent(script, { tools: [chargeTool([])] as AnyTool[] }), { store: full, context: testContext(), runId: "r" }).send("go");
  const raw = full.readRaw("r");
  const started = raw.findIndex((body) => (JSON.parse(body) as RunEvent).type === "tool.started");
  const store = new MemoryRunStore();
  store.appendRaw(raw.slice(0, started + 1));
  return store;
}

describe("an unknown outcome", () => {
  it("pauses the run for a person instead of telling the model anything", async () => {
    const effects: string[] = [];
    const store = await killedDuringCharge();
    const outcome = await AgentRun.open(scriptedAgent(script, { tools: [chargeTool(effects)] as AnyTool[] }), "r", { store, context: testContext() }).resume({ mark: true });
    expect(outcome.status).toBe("waiting");
    expect(outcome.pending).toEqual([{ callId: "c1", tool: "charge", roles: [], unknownOutcome: true }]);
    expect(effects).toEqual([]);
    const types = store.read("r").map((event) => event.type);
    expect(types.slice(-3)).toEqual(["run.resumed", "tool.unknown_outcome", "run.paused"]);
    // Resuming again without a decision changes nothing that matters: still waiting, still not run.
    expect((await AgentRun.open(scriptedAgent(script, { tools: [chargeTool(effects)] as AnyTool[] }), "r", { store, context: testContext() }).resume()).status).toBe("waiting");
    expect(effects).toEqual([]);
  });

  for (const decision of ["rerun", "skip"] as const) {
    it(`--${decision}: ${decision === "rerun" ? "runs the call once more" : "tells the model the outcome is unknown and never runs it"}`, async () => {
      const effects: string[] = [];
      const agent = () => scriptedAgent(script, { tools: [chargeTool(effects)] as AnyTool[] });
      const store = await killedDuringCharge();
      await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
      RunLog.open("r", store, testContext().clock).append<"tool.decided">({ type: "tool.decided", callId: "c1", name: "charge", decision });
      const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
      expect(outcome).toMatchObject({ status: "completed", output: "done" });
      expect(effects).toEqual(decision === "rerun" ? ["c1"] : []);
      const events = store.read("r");
      const settled = events.find((event) => (event.type === "tool.finished" || event.type === "tool.decided") && event.callId === "c1" && (event.type === "tool.finished" || decision === "skip"));
      expect(settled?.type).toBe(decision === "rerun" ? "tool.finished" : "tool.decided");
      const lastRequest = events.filter((event) => event.type === "llm.started").at(-1);
      const toolMessage = lastRequest?.type === "llm.started" ? lastRequest.request.messages.find((item) => item.role === "tool") : undefined;
      expect(toolMessage?.content).toBe(decision === "rerun" ? '{"charged":5}' : UNKNOWN_OUTCOME_SKIPPED);
    });
  }
});

describe("tools that hang or misbehave", () => {
  it("a call that outlives its timeout fails with kind timeout, its signal aborted; a late rejection is swallowed", async () => {
    let aborted = false;
    let rejectLate: (error: Error) => void = () => undefined;
    const hang = defineTool({
      name: "hang",
      description: "Never finishes on its own.",
      input: z.object({}),
      idempotent: true,
      timeoutMs: 20,
      run: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => (aborted = true));
          rejectLate = reject;
        }),
    });
    const store = new MemoryRunStore();
    const run = AgentRun.start(
      scriptedAgent({ responses: [{ tool_calls: [{ id: "h", name: "hang", arguments: {} }] }, { text: "gave up" }] }, { tools: [hang] as AnyTool[] }),
      { store, context: testContext(), runId: "t" },
    );
    expect((await run.send("go")).output).toBe("gave up");
    const failed = store.read("t").find((event) => event.type === "tool.failed");
    expect(failed).toMatchObject({ error: { kind: "timeout", message: expect.stringContaining("20 ms") } });
    expect(aborted).toBe(true);
    const before = store.readRaw("t");
    rejectLate(new Error("too late"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.readRaw("t")).toEqual(before);
  });

  it("a retrieval a tool records after its call returned never reaches the log, not even in a sibling's batch", async () => {
    let recordLater: () => void = () => undefined;
    let releaseSibling: () => void = () => undefined;
    const quick = defineTool({
      name: "quick",
      description: "Returns, then records.",
      input: z.object({}),
      idempotent: true,
      run: (_args, context) => {
        recordLater = () => context.recordRetrieval("late", [{ id: "x", source: "x.md", text: "x", score: 1, rank: 1 }]);
        return "ok";
      },
    });
    const slow = defineTool({
      name: "slow",
      description: "Waits for the test.",
      input: z.object({}),
      idempotent: true,
      run: () =>
        new Promise((resolve) => {
          releaseSibling = () => resolve("slow ok");
        }),
    });
    const store = new MemoryRunStore();
    const run = AgentRun.start(
      scriptedAgent(
        { responses: [{ tool_calls: [{ id: "q", name: "quick", arguments: {} }, { id: "s", name: "slow", arguments: {} }] }, { text: "done" }] },
        { tools: [quick, slow, echoTool] as AnyTool[] },
      ),
      { store, context: testContext(), runId: "late" },
    );
    const sent = run.send("go");
    await new Promise((resolve) => setImmediate(resolve));
    recordLater();
    releaseSibling();
    await sent;
    expect(store.read("late").filter((event) => event.type === "retrieval")).toEqual([]);
  });

  it("rejects a timeout that is not a positive number at definition", () => {
    expect(() => defineTool({ name: "x", description: "x", input: z.object({}), timeoutMs: 0, run: () => 1 })).toThrow(/timeoutMs/);
  });
});

describe("a kill during a retry's backoff", () => {
  it("continues with the next attempt number and the budget that is left, never attempt 1 again", async () => {
    const faulty = {
      responses: [{ error: { kind: "server" as const, status: 503, message: "busy" } }, { error: { kind: "server" as const, status: 503, message: "busy" } }, { text: "finally" }],
    };
    const full = new MemoryRunStore();
    await AgentRun.start(scriptedAgent(faulty, { maxRetries: 2 }), { store: full, context: testContext(), runId: "b" }).send("go");
    const raw = full.readRaw("b");
    // Killed while sleeping after the first failure: the log ends at llm.failed.
    const cut = raw.findIndex((body) => (JSON.parse(body) as RunEvent).type === "llm.failed") + 1;
    const store = new MemoryRunStore();
    store.appendRaw(raw.slice(0, cut));
    const outcome = await AgentRun.open(scriptedAgent(faulty, { maxRetries: 2 }), "b", { store, context: testContext() }).resume();
    expect(outcome.output).toBe("finally");
    const attempts = store.read("b").flatMap((event) => (event.type === "llm.started" ? [event.attempt] : []));
    expect(attempts).toEqual([1, 2, 3]);
  });
});
