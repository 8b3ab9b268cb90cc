import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { agentFrom, decide, ofType, setup, start, toldModel } from "./support.js";

const write = (path: string, content = "x") => ({ name: "write_file", arguments: { path, content } });
const thenAnswer = { text: "done" };

describe("every block reason is an event with a detail, and the model is told", () => {
  it("mode_blocked: chat mode refuses a tool that is not read-only, and nothing is written", async () => {
    const agent = await agentFrom("name: a\nmode: chat\nllm: {provider: scripted}\ntools: [read_file, write_file]\n", {
      responses: [{ tool_calls: [write("notes.md")] }, thenAnswer],
    });
    const { run, outcome } = await start(agent, "save a note");
    expect(outcome.status).toBe("completed");
    const [blocked] = ofType(run.log.events, "tool.blocked");
    expect(blocked).toMatchObject({ name: "write_file", reason: "mode_blocked", detail: "mode chat allows read-only tools only, and write_file is not read-only" });
    expect(ofType(run.log.events, "tool.started")).toEqual([]);
    expect(toldModel(run.log.events, "call_1_1")).toBe("Blocked (mode_blocked): mode chat allows read-only tools only, and write_file is not read-only");
  });

  it("mode_blocked applies in plan mode too, while read-only tools run", async () => {
    const agent = await agentFrom("name: a\nmode: plan\nllm: {provider: scripted}\ntools: [list_dir, write_file]\n", {
      responses: [{ tool_calls: [{ name: "list_dir", arguments: {} }, write("x.md")] }, thenAnswer],
    });
    const { run } = await start(agent, "go");
    expect(ofType(run.log.events, "tool.blocked").map((event) => event.name)).toEqual(["write_file"]);
    expect(ofType(run.log.events, "tool.finished").map((event) => event.name)).toEqual(["list_dir"]);
  });

  it("policy_denied: the first matching rule denies by argument pattern", async () => {
    const agent = await agentFrom(
      `name: a
mode: yolo
llm: {provider: scripted}
tools: [write_file]
policy:
  - { tool: write_file, args: { path: "**/.env" }, action: deny, reason: no secrets in files }
  - { tool: "*", action: allow }
`,
      { responses: [{ tool_calls: [write("config/.env"), write("notes.md")] }, thenAnswer] },
    );
    const { run } = await start(agent, "go");
    const [blocked] = ofType(run.log.events, "tool.blocked");
    expect(blocked).toMatchObject({ callId: "call_1_1", reason: "policy_denied" });
    expect(blocked?.detail).toBe('policy[0] denies write_file where path matches "**/.env": no secrets in files');
    expect(toldModel(run.log.events, "call_1_1")).toMatch(/^Blocked \(policy_denied\): policy\[0\] denies/);
    expect(ofType(run.log.events, "tool.finished").map((event) => event.callId)).toEqual(["call_1_2"]);
  });

  it("rate_limited: a per-tool limit counted on the run clock", async () => {
    const agent = await agentFrom(
      "name: a\nllm: {provider: scripted}\ntools: [calculator]\nrate_limits:\n  tools:\n    calculator: { max: 2, per: 60 }\n",
      {
        responses: [
          { tool_calls: [1, 2, 3].map((n) => ({ name: "calculator", arguments: { expression: `${n}+${n}` } })) },
          thenAnswer,
        ],
      },
    );
    const { run } = await start(agent, "go");
    const blocked = ofType(run.log.events, "tool.blocked");
    expect(blocked.map((event) => [event.callId, event.reason])).toEqual([["call_1_3", "rate_limited"]]);
    expect(blocked[0]?.detail).toBe("calculator limit reached: 2 call(s) in the last 60 s (limit 2)");
    expect(toldModel(run.log.events, "call_1_3")).toMatch(/^Blocked \(rate_limited\)/);
  });

  it("rate_limited: the window slides with the run clock", async () => {
    const agent = await agentFrom("name: a\nllm: {provider: scripted}\ntools: [calculator]\nrate_limits:\n  run: { max: 1, per: 10 }\n", {
      responses: [
        { tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }] },
        { text: "one" },
        { tool_calls: [{ name: "calculator", arguments: { expression: "2+2" } }] },
        { text: "two" },
      ],
    });
    const env = setup();
    const run = AgentRun.start(agent, { store: env.store, context: env.context });
    await run.send("first");
    env.clock.advance(11_000);
    await run.send("second, after the window");
    expect(ofType(run.log.events, "tool.blocked")).toEqual([]);
    expect(ofType(run.log.events, "tool.finished")).toHaveLength(2);
  });

  it("approval_denied: a denial blocks the call with the approver's reason", async () => {
    const agent = await agentFrom("name: a\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true}]\n", {
      responses: [{ tool_calls: [write("a.md")] }, thenAnswer],
    });
    const { run, store, context } = await start(agent, "go");
    decide(store, run.runId, "call_1_1", { deny: "not today" });
    const resumed = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(resumed.status).toBe("completed");
    const events = store.read(run.runId);
    expect(ofType(events, "tool.blocked")[0]).toMatchObject({ reason: "approval_denied", detail: "denied by approver: not today" });
    expect(toldModel(events, "call_1_1")).toBe("Blocked (approval_denied): denied by approver: not today");
    expect(ofType(events, "tool.started")).toEqual([]);
  });

  it("approval_expired: a resume after the deadline expires the call", async () => {
    const agent = await agentFrom("name: a\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true, approval_timeout: 60}]\n", {
      responses: [{ tool_calls: [write("a.md")] }, thenAnswer],
    });
    const { run, store, context, clock } = await start(agent, "go");
    expect(ofType(run.log.events, "approval.requested")[0]?.deadline).toBe(Date.UTC(2026, 0, 1) + 60_000);
    clock.advance(61_000);
    await AgentRun.open(agent, run.runId, { store, context }).resume();
    const events = store.read(run.runId);
    expect(ofType(events, "approval.expired")).toHaveLength(1);
    expect(ofType(events, "tool.blocked")[0]).toMatchObject({ reason: "approval_expired", detail: "no decision before the deadline (2026-01-01T00:01:00.000Z)" });
    expect(toldModel(events, "call_1_1")).toMatch(/^Blocked \(approval_expired\)/);
  });

  it("approval_expired: a resume after the deadline expires even a call approved in time", async () => {
    const agent = await agentFrom("name: a\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true, approval_timeout: 60}]\n", {
      responses: [{ tool_calls: [write("a.md")] }, thenAnswer],
    });
    const { run, store, context, clock } = await start(agent, "go");
    decide(store, run.runId, "call_1_1", {});
    clock.advance(120_000);
    await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(ofType(store.read(run.runId), "tool.blocked")[0]?.reason).toBe("approval_expired");
  });

  it("approval_expired: an approval given after the deadline does not count, even at the prompt", async () => {
    const env = setup();
    const lateApprover = {
      async decide(question: { missingRoles: string[] }) {
        env.clock.advance(10 * 60_000); // the person answers ten minutes later
        return question.missingRoles.map((role) => ({ approved: true, role }));
      },
    };
    const agent = await agentFrom(
      "name: a\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true, approval_timeout: 60}]\n",
      { responses: [{ tool_calls: [write("a.md")] }, thenAnswer] },
      { approver: lateApprover },
    );
    const { run } = await start(agent, "go", env);
    expect(ofType(run.log.events, "approval.granted")).toHaveLength(1);
    expect(ofType(run.log.events, "tool.blocked")[0]?.reason).toBe("approval_expired");
    expect(ofType(run.log.events, "tool.started")).toEqual([]);
  });

  it("guardrail: a blocked pattern in a call's arguments stops the call and records a guardrail event", async () => {
    const agent = await agentFrom(
      "name: a\nmode: yolo\nllm: {provider: scripted}\ntools: [write_file]\nguardrails:\n  output:\n    block: ['rm -rf']\n",
      { responses: [{ tool_calls: [write("run.sh", "rm -rf /")] }, thenAnswer] },
    );
    const { run } = await start(agent, "go");
    expect(ofType(run.log.events, "guardrail")[0]).toMatchObject({ direction: "output", action: "block", rule: "output_pattern:rm -rf", callId: "call_1_1" });
    expect(ofType(run.log.events, "tool.blocked")[0]).toMatchObject({ reason: "guardrail" });
    expect(toldModel(run.log.events, "call_1_1")).toMatch(/^Blocked \(guardrail\): output_pattern:rm -rf/);
  });

  it("a tool that ran and failed is tool.failed, never blocked", async () => {
    const agent = await agentFrom(`name: a\nmode: yolo\nllm: {provider: scripted}\ntools: [read_file]\n`, {
      responses: [{ tool_calls: [{ name: "read_file", arguments: { path: "missing.md" } }] }, thenAnswer],
    });
    const { run } = await start(agent, "go");
    expect(ofType(run.log.events, "tool.blocked")).toEqual([]);
    expect(ofType(run.log.events, "tool.failed")[0]?.error).toMatchObject({ kind: "threw", message: expect.stringMatching(/^file_not_found/) });
  });
});

describe("policy rules cannot be dodged by spelling a path differently", () => {
  it("a deny rule catches ./, // and .. spellings of the same path", async () => {
    const agent = await agentFrom(
      "name: a\nmode: yolo\nllm: {provider: scripted}\ntools: [write_file]\npolicy:\n  - { tool: write_file, args: { path: \"secrets/**\" }, action: deny }\n",
      { responses: [{ tool_calls: [write("./secrets/key"), write("secrets//key2"), write("notes/../secrets/key3"), write("../outside")] }, thenAnswer] },
    );
    const { run } = await start(agent, "go");
    expect(ofType(run.log.events, "tool.blocked").map((event) => [event.callId, event.reason])).toEqual([
      ["call_1_1", "policy_denied"],
      ["call_1_2", "policy_denied"],
      ["call_1_3", "policy_denied"],
      ["call_1_4", "policy_denied"],
    ]);
  });

  it("a trust rule never vouches for a path that climbs out of what it names", async () => {
    const agent = await agentFrom(
      "name: a\nmode: auto\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true}]\ntrust:\n  - { tool: write_file, args: { path: \"notes/**\" } }\n",
      { responses: [{ tool_calls: [write("notes/../src/main.ts"), write("./notes/ok.md")] }, thenAnswer] },
    );
    const { outcome } = await start(agent, "go");
    expect(outcome.pending.map((item) => item.callId)).toEqual(["call_1_1"]);
  });

  it("a rule can match every tool of a risk", async () => {
    const agent = await agentFrom("name: a\nmode: yolo\nllm: {provider: scripted}\ntools: [calculator, write_file]\npolicy:\n  - { risk: destructive, action: require_approval, roles: [lead] }\n", {
      responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }, write("a.md")] }, thenAnswer],
    });
    const { outcome } = await start(agent, "go");
    expect(outcome.pending).toEqual([{ callId: "call_1_2", tool: "write_file", roles: ["lead"] }]);
  });
});

describe("config mistakes that would silently disable a rule are errors", () => {
  it("a rate limit on a tool the agent does not have", async () => {
    await expect(agentFrom("name: a\nllm: {provider: scripted}\ntools: [calculator]\nrate_limits:\n  tools:\n    calculater: { max: 1 }\n", { responses: [{ text: "x" }] })).rejects.toThrow(
      'no tool named "calculater" (did you mean "calculator"?); a limit on it would never apply',
    );
  });

  it("two tools with one name", async () => {
    await expect(agentFrom("name: a\nllm: {provider: scripted}\ntools: [calculator, calculator]\n", { responses: [{ text: "x" }] })).rejects.toThrow(/two tools are named "calculator"/);
  });
});
