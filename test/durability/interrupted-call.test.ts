/**
 * A model call the process stopped during: the attempt stays in the log, closed by
 * `llm.interrupted`, and the call is asked again as the next attempt — served what the
 * interrupted attempt would have got, with the retry budget, backoff and jitter of the try it
 * stands for — until the step has been interrupted `maxInterruptions` times: then the run ends.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun, type AgentDefinition } from "../../src/agent/index.js";
import type { EventOf, RunEvent, ScriptInput } from "../../src/contracts/index.js";
import { buildAgent, loadConfig, parseConfig } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { fold, viewRun } from "../../src/journal/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { describeEvent } from "../../src/trace/format.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, tempDir, testContext } from "../helpers.js";
import { attemptsOf, resumeEquivalent } from "./equivalence.js";

const llm = (events: readonly RunEvent[]) =>
  events.flatMap((event) =>
    event.type === "llm.started" || event.type === "llm.failed" || event.type === "llm.finished" || event.type === "llm.interrupted"
      ? [`${event.type.slice(4)} ${event.step}/${event.attempt}`]
      : [],
  );

/** A store holding `bodies` up to and including the n-th (1-based) `llm.started`: a kill during that call. */
function cutAtStart(bodies: readonly string[], n: number): MemoryRunStore {
  let seen = 0;
  const index = bodies.findIndex((body) => (JSON.parse(body) as RunEvent).type === "llm.started" && ++seen === n);
  if (index < 0) throw new Error(`no llm.started #${n}`);
  const store = new MemoryRunStore();
  store.appendRaw(bodies.slice(0, index + 1));
  return store;
}

async function straight(agent: () => AgentDefinition): Promise<string[]> {
  const store = new MemoryRunStore();
  await AgentRun.start(agent(), { store, context: testContext(), runId: "r" }).send("go");
  return store.readRaw("r");
}

/** Kills the run during its n-th model attempt, again and again: each resume is killed during the call it re-asks. */
async function killedRepeatedly(agent: () => AgentDefinition, times: number): Promise<MemoryRunStore> {
  let bodies = await straight(agent);
  let store = cutAtStart(bodies, 1);
  for (let kill = 2; kill <= times; kill++) {
    await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    bodies = store.readRaw("r");
    store = cutAtStart(bodies, kill);
  }
  return store;
}

describe("an interrupted model call", () => {
  it("is closed with llm.interrupted and asked again as the next attempt, with the same request", async () => {
    const agent = () => scriptedAgent({ responses: [{ text: "done" }] });
    const recorded = await straight(agent);
    const store = cutAtStart(recorded, 1);
    const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(outcome).toMatchObject({ status: "completed", output: "done" });
    const events = store.read("r");
    expect(llm(events)).toEqual(["started 1/1", "interrupted 1/1", "started 1/2", "finished 1/2"]);
    const [first, second] = events.filter((event): event is EventOf<"llm.started"> => event.type === "llm.started");
    expect(second?.request).toEqual(first?.request);
    expect(second?.requestKey).toBe(first?.requestKey);
    // Only the interrupted attempt and its closing marker separate the two logs.
    expect(resumeEquivalent(store.readRaw("r")).map((body) => JSON.parse(body).type)).toEqual(recorded.map((body) => JSON.parse(body).type));
  });

  it("is served what the interrupted attempt would have got: a scripted fault is not skipped, the retry keeps its budget, backoff and jitter", async () => {
    const script: ScriptInput = { responses: [{ error: { kind: "server", message: "boom" } }, { text: "done" }] };
    const agent = () => scriptedAgent(script, { maxRetries: 1, retryBaseMs: 100 });
    const recorded = (await straight(agent)).map((body) => JSON.parse(body) as RunEvent);
    expect(llm(recorded)).toEqual(["started 1/1", "failed 1/1", "started 1/2", "finished 1/2"]);
    // Killed during the first attempt, and the resume killed during its re-ask too.
    const store = await killedRepeatedly(agent, 2);
    const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(outcome).toMatchObject({ status: "completed", output: "done" });
    const events = store.read("r");
    expect(llm(events)).toEqual(["started 1/1", "interrupted 1/1", "started 1/2", "interrupted 1/2", "started 1/3", "failed 1/3", "started 1/4", "finished 1/4"]);
    const failed = (list: readonly RunEvent[]) => list.find((event): event is EventOf<"llm.failed"> => event.type === "llm.failed");
    // The same fault, retried after the same delay (the budget of one retry was not used up by the kills).
    expect(failed(events)?.error).toEqual(failed(recorded)?.error);
    expect(failed(events)?.retryInMs).toBe(failed(recorded)?.retryInMs);
    expect(attemptsOf(resumeEquivalent(store.readRaw("r")))).toEqual(["1/1", "1/2"]);
  });

  it("keeps the scripted model's place when earlier turns took entries by rule: the interrupted attempts took none", async () => {
    // Turn 1 ends on a fault a rule gave for its message; turn 2's call is interrupted, then re-asked.
    const script: ScriptInput = {
      rules: [{ when: { user_contains: "go" }, respond: { error: { kind: "server", message: "boom" } }, times: 1 }],
      responses: [{ text: "second" }],
    };
    const agent = () => scriptedAgent(script, { maxRetries: 0 });
    const full = new MemoryRunStore();
    const run = AgentRun.start(agent(), { store: full, context: testContext(), runId: "r" });
    expect((await run.send("go")).error?.code).toBe("provider_server");
    expect((await run.send("again")).output).toBe("second");
    const store = cutAtStart(full.readRaw("r"), 2);
    const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(outcome).toMatchObject({ status: "completed", output: "second" });
    expect(llm(store.read("r")).slice(-3)).toEqual(["interrupted 1/1", "started 1/2", "finished 1/2"]);
  });

  it("ends the run after maxInterruptions interruptions of one step, instead of asking for ever", async () => {
    const agent = () => scriptedAgent({ responses: [{ text: "done" }] }, { maxInterruptions: 2 });
    const store = await killedRepeatedly(agent, 2);
    const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("llm_interrupted");
    expect(outcome.error?.message).toMatch(/step 1 was interrupted 2 time\(s\)/);
    const events = store.read("r");
    expect(llm(events)).toEqual(["started 1/1", "interrupted 1/1", "started 1/2", "interrupted 1/2"]);
    expect(events.at(-1)).toMatchObject({ type: "run.finished", status: "failed" });
    // Resuming the failed run asks nothing.
    await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(store.read("r")).toHaveLength(events.length);
  });

  it("defaults to three interruptions, and a kill between the closing marker and the re-ask continues with the next attempt", async () => {
    const agent = () => scriptedAgent({ responses: [{ text: "done" }] });
    const store = await killedRepeatedly(agent, 3);
    const outcome = await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    expect(outcome.error?.code).toBe("llm_interrupted");

    // Cut right after an llm.interrupted: no pending call, no backoff to wait; attempt 2 follows.
    const once = await killedRepeatedly(agent, 1);
    await AgentRun.open(agent(), "r", { store: once, context: testContext() }).resume();
    const bodies = once.readRaw("r");
    const closed = bodies.findIndex((body) => (JSON.parse(body) as RunEvent).type === "llm.interrupted");
    const cut = new MemoryRunStore();
    cut.appendRaw(bodies.slice(0, closed + 1));
    expect(fold(cut.read("r")).pendingLlm).toBeUndefined();
    expect((await AgentRun.open(agent(), "r", { store: cut, context: testContext() }).resume()).output).toBe("done");
    expect(llm(cut.read("r"))).toEqual(["started 1/1", "interrupted 1/1", "started 1/2", "finished 1/2"]);
  });

  it("shows in the trace, the fold and the run view", async () => {
    const agent = () => scriptedAgent({ responses: [{ text: "done" }] });
    const store = await killedRepeatedly(agent, 1);
    await AgentRun.open(agent(), "r", { store, context: testContext() }).resume();
    const events = store.read("r");
    const marker = events.find((event) => event.type === "llm.interrupted") as RunEvent;
    expect(describeEvent(marker)).toBe("step 1 attempt 1 interrupted: the process stopped during the call (the provider may have received it)");
    const state = fold(events);
    // The interrupted attempt took no answer: one model call with an outcome, as in the uninterrupted run.
    expect(state.llmCalls).toBe(1);
    expect(viewRun(events).llmCalls).toBe(1);
  });

  it("is configured with llm.max_interruptions (a whole number of at least 1), checked where the config comes in", async () => {
    const dir = tempDir();
    const file = join(dir, "agent.yaml");
    writeFileSync(file, "name: a\nllm:\n  provider: scripted\n  max_interruptions: 1\n");
    const agent = await buildAgent(loadConfig(file), { mock: new ScriptedModel({ responses: [{ text: "done" }] }) });
    expect(agent.maxInterruptions).toBe(1);
    let refused: unknown;
    try {
      parseConfig("name: a\nllm:\n  provider: scripted\n  max_interruptions: 0\n", { file: "agent.yaml", env: {} });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).place).toEqual({ file: "agent.yaml", path: "llm.max_interruptions" });
  });
});
