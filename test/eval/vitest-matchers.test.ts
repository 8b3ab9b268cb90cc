/** `retrace-agents/vitest`: matchers over a run's log, for evals kept in a vitest suite. */
import { describe, expect, it } from "vitest";
import "../../src/vitest/index.js";
import { AgentRun } from "../../src/agent/index.js";
import { viewRun } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { scriptedAgent, testContext } from "../helpers.js";
import { blockedCall, buildLog, guardrail, requested, retrieval, user } from "./log.js";

async function echoRun() {
  const agent = scriptedAgent({ responses: [{ tool_calls: [{ name: "echo", arguments: { text: "hi" } }] }, { text: "I said hi." }] });
  const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
  await run.send("say hi");
  return run;
}

describe("retrace-agents/vitest matchers", () => {
  it("read an AgentRun's log", async () => {
    const run = await echoRun();
    expect(run).toHaveCompleted();
    expect(run).toHaveCalledTool("echo");
    expect(run).toHaveCalledTool("echo", { text: "hi" });
    expect(run).not.toHaveCalledTool("boom");
    expect(run).toHaveToolSequence(["echo"]);
    expect(run).toHaveOutput("said hi");
    expect(run).toHaveOutput(/^I said/);
    expect(run).toBeWithinBudget({ maxSteps: 2 });
    expect(run).not.toHaveFailed();
  });

  it("fail with the scorer's reason", async () => {
    const run = await echoRun();
    expect(() => expect(run).toHaveCalledTool("boom")).toThrow('boom was never called; calls: echo({"text":"hi"}) finished');
    expect(() => expect(run).toHaveUsedNoTools()).toThrow(/expected no tool calls; the model requested echo/);
    expect(() => expect(run).not.toHaveCalledTool("echo")).toThrow(/expected not, but: echo was called/);
    expect(() => expect(run).toBeWithinBudget({ maxCost: 1 })).toThrow(/budgets could not decide \(neither a pass nor a failure\): cannot check cost/);
  });

  it("show expected and received where the scorer compared two values", async () => {
    const run = await echoRun();
    let thrown: unknown;
    try {
      expect(run).toHaveCalledTool("echo", { text: "bye" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ expected: { text: "bye" }, actual: { text: "hi" } });
    expect((thrown as Error).message).toMatch(/differs at text: expected "bye", got "hi"/);
  });

  it("a check that cannot be made fails either way: .not does not turn it into a pass", async () => {
    const run = await echoRun(); // a scripted model: no price, so no cost
    expect(() => expect(run).not.toBeWithinBudget({ maxCost: 1000 })).toThrow(/budgets could not decide \(neither a pass nor a failure\): cannot check cost/);
    expect(() => expect(run).toBeWithinBudget({ maxCost: 1000 })).toThrow(/budgets could not decide \(neither a pass nor a failure\): cannot check cost/);
  });

  it("read a hand-built log, a RunView, or an eval case's t", () => {
    const events = buildLog([
      user("write"),
      requested("c1", "write_file", { path: "a" }),
      blockedCall("c1", "write_file", "mode_blocked"),
      guardrail("warn", "output_pattern:refund"),
      retrieval("c2", "q", [{ id: "a.md#1", source: "a.md", text: "the answer" }]),
    ]);
    expect(events).toHaveBlockedTool("write_file", "mode_blocked");
    expect(events).not.toHaveBlockedTool("write_file", "policy_denied");
    expect(viewRun(events)).not.toHaveCalledTool("write_file");
    expect({ run: viewRun(events) }).toHaveTriggeredGuardrail("warn");
    expect(events).toHaveRetrievedChunk("answer");
    expect(() => expect(42).toHaveCompleted()).toThrow(/expected a run/);
  });
});
