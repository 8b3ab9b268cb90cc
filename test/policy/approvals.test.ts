import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { digest } from "../../src/canonical/index.js";
import { promptApprover } from "../../src/policy/prompt-approver.js";
import { agentFrom, decide, ofType, setup, start } from "./support.js";

const write = (path: string) => ({ name: "write_file", arguments: { path, content: "x" } });
const gated = "name: a\nllm: {provider: scripted}\ntools: [calculator, {name: write_file, requires_approval: true}]\n";

describe("approvals", () => {
  it("pause a gated call (never approved by default) and resume exactly where the run stopped", async () => {
    const agent = await agentFrom(gated, { responses: [{ tool_calls: [write("a.md")] }, { text: "saved" }] });
    const { run, outcome, store, context } = await start(agent, "save");
    expect(outcome).toMatchObject({ status: "waiting", pending: [{ callId: "call_1_1", tool: "write_file", roles: [] }] });
    expect(run.log.events.at(-1)).toMatchObject({ type: "run.paused", reason: "approval" });
    const requested = ofType(run.log.events, "approval.requested")[0];
    expect(requested?.argsHash).toBe(digest({ path: "a.md", content: "x" }));

    decide(store, run.runId, "call_1_1", {});
    const resumed = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(resumed).toMatchObject({ status: "completed", output: "saved" });
    const events = store.read(run.runId);
    expect(ofType(events, "llm.started")).toHaveLength(2); // the first answer was not asked for again
    expect(ofType(events, "tool.finished")[0]?.callId).toBe("call_1_1");
  });

  it("binds an approval to its call: a later call with other arguments needs its own", async () => {
    const agent = await agentFrom(gated, {
      responses: [{ tool_calls: [write("a.md")] }, { tool_calls: [write("b.md")] }, { text: "both saved" }],
    });
    const { run, store, context } = await start(agent, "save two");
    decide(store, run.runId, "call_1_1", {});
    const second = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(second).toMatchObject({ status: "waiting", pending: [{ callId: "call_2_1" }] });
    const requests = ofType(store.read(run.runId), "approval.requested");
    expect(requests.map((event) => event.argsHash)).toEqual([digest({ path: "a.md", content: "x" }), digest({ path: "b.md", content: "x" })]);
    expect(ofType(store.read(run.runId), "tool.started").map((event) => event.callId)).toEqual(["call_1_1"]);
  });

  it("a grant for other arguments does not count", async () => {
    const agent = await agentFrom(gated, { responses: [{ tool_calls: [write("a.md")] }, { text: "saved" }] });
    const { run, store, context } = await start(agent, "save");
    const { RunLog } = await import("../../src/store/index.js");
    const log = RunLog.open(run.runId, store, context.clock);
    log.append<"approval.granted">({ type: "approval.granted", callId: "call_1_1", argsHash: digest({ path: "other.md", content: "x" }), role: "approver" });
    const again = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(again.status).toBe("waiting");
  });

  it("multi-role chains collect every role; a role that is not required does not count", async () => {
    const agent = await agentFrom("name: a\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: [lead, security]}]\n", {
      responses: [{ tool_calls: [write("a.md")] }, { text: "saved" }],
    });
    const { run, store, context } = await start(agent, "save");
    expect(ofType(run.log.events, "approval.requested")[0]?.roles).toEqual(["lead", "security"]);
    decide(store, run.runId, "call_1_1", { role: "lead" });
    decide(store, run.runId, "call_1_1", { role: "intern" });
    const half = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(half).toMatchObject({ status: "waiting", pending: [{ callId: "call_1_1", roles: ["lead", "security"] }] });
    decide(store, run.runId, "call_1_1", { role: "security" });
    const done = await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(done.status).toBe("completed");
  });

  it("in a parallel batch where one call needs approval, none runs until all are decided", async () => {
    const agent = await agentFrom(gated, {
      responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }, write("a.md")] }, { text: "done" }],
    });
    const { run, outcome, store, context } = await start(agent, "go");
    expect(outcome.status).toBe("waiting");
    expect(ofType(run.log.events, "tool.started")).toEqual([]);
    decide(store, run.runId, "call_1_2", {});
    await AgentRun.open(agent, run.runId, { store, context }).resume();
    expect(ofType(store.read(run.runId), "tool.finished").map((event) => event.callId)).toEqual(["call_1_1", "call_1_2"]);
  });

  it("a policy rule can require approval from named roles", async () => {
    const agent = await agentFrom(
      "name: a\nllm: {provider: scripted}\ntools: [calculator]\npolicy:\n  - { tool: calculator, action: require_approval, roles: [finance] }\n",
      { responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }] }, { text: "2" }] },
    );
    const { outcome } = await start(agent, "go");
    expect(outcome).toMatchObject({ status: "waiting", pending: [{ roles: ["finance"] }] });
  });

  it("the interactive approver asks y/N and defaults to No", async () => {
    const ask = async (answer: string) => {
      const input = new PassThrough();
      const output = new PassThrough();
      input.end(answer);
      const agent = await agentFrom(gated, { responses: [{ tool_calls: [write("a.md")] }, { text: "ok" }] }, { approver: promptApprover(input, output) });
      const { run } = await start(agent, "save");
      return { events: run.log.events, prompt: String(output.read() ?? "") };
    };
    const yes = await ask("y\n");
    expect(yes.prompt).toContain('Approve write_file({"content":"x","path":"a.md"}) [call_1_1]? [y/N]');
    expect(ofType(yes.events, "approval.granted")[0]).toMatchObject({ by: "prompt" });
    expect(ofType(yes.events, "tool.finished")).toHaveLength(1);

    const nothing = await ask("\n");
    expect(ofType(nothing.events, "approval.denied")[0]?.reason).toBe("no answer (default No)");
    expect(ofType(nothing.events, "tool.blocked")[0]?.reason).toBe("approval_denied");

    const closed = await ask("");
    expect(ofType(closed.events, "tool.blocked")[0]?.reason).toBe("approval_denied");
  });

  it("the interactive approver gives each piped answer to its own question", async () => {
    const input = new PassThrough();
    input.end("y\nn\n");
    const agent = await agentFrom(gated, { responses: [{ tool_calls: [write("a.md"), write("b.md")] }, { text: "ok" }] }, { approver: promptApprover(input, new PassThrough()) });
    const { run } = await start(agent, "save both");
    expect(ofType(run.log.events, "approval.granted").map((event) => event.callId)).toEqual(["call_1_1"]);
    expect(ofType(run.log.events, "approval.denied")).toMatchObject([{ callId: "call_1_2", reason: "denied at the prompt" }]);
    expect(ofType(run.log.events, "tool.finished").map((event) => event.callId)).toEqual(["call_1_1"]);
  });
});

describe("modes", () => {
  const approvalTool = "tools: [{name: write_file, requires_approval: true}]\n";

  it("auto: a standing trust rule allows what it matches without asking", async () => {
    const agent = await agentFrom(`name: a\nmode: auto\nllm: {provider: scripted}\n${approvalTool}trust:\n  - { tool: write_file, args: { path: "notes/**" } }\n`, {
      responses: [{ tool_calls: [write("notes/today.md"), write("src/main.ts")] }, { text: "ok" }],
    });
    const { outcome, run } = await start(agent, "go");
    expect(outcome).toMatchObject({ status: "waiting", pending: [{ callId: "call_1_2" }] });
    expect(ofType(run.log.events, "approval.requested").map((event) => event.callId)).toEqual(["call_1_2"]);
  });

  it("yolo skips approvals and rate limits, but never the policy rules", async () => {
    const agent = await agentFrom(
      `name: a\nmode: yolo\nllm: {provider: scripted}\n${approvalTool}rate_limits:\n  run: { max: 0 }\npolicy:\n  - { tool: write_file, args: { path: "**/.env" }, action: deny }\n  - { tool: write_file, args: { path: "prod/**" }, action: require_approval }\n`,
      { responses: [{ tool_calls: [write("a.md"), write(".env"), write("prod/x")] }, { text: "ok" }] },
    );
    const { outcome, run } = await start(agent, "go");
    expect(outcome).toMatchObject({ status: "waiting", pending: [{ callId: "call_1_3" }] });
    // Nothing ran yet: the batch waits for the policy-required approval.
    expect(ofType(run.log.events, "tool.started")).toEqual([]);
    decide(run.log.store, run.runId, "call_1_3", {});
    await AgentRun.open(agent, run.runId, { store: run.log.store, context: setup().context }).resume();
    const events = run.log.store.read(run.runId);
    expect(ofType(events, "tool.blocked").map((event) => [event.callId, event.reason])).toEqual([["call_1_2", "policy_denied"]]);
    expect(ofType(events, "tool.finished").map((event) => event.callId)).toEqual(["call_1_1", "call_1_3"]);
  });

  it("act: a tool that requires approval waits; one that does not runs", async () => {
    const agent = await agentFrom(`name: a\nllm: {provider: scripted}\ntools: [calculator]\n`, {
      responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "2*3" } }] }, { text: "6" }],
    });
    expect((await start(agent, "go")).outcome.status).toBe("completed");
  });
});

describe("decisions live in the run log", () => {
  it("the same script, clock and decisions give byte-identical logs (what replay relies on)", async () => {
    const { canonicalJson } = await import("../../src/canonical/index.js");
    const { tempDir } = await import("../helpers.js");
    const dir = tempDir();
    const once = async () => {
      const agent = await agentFrom(
        "name: a\nllm: {provider: scripted}\ntools: [calculator, {name: write_file, requires_approval: [lead, security], approval_timeout: 600}]\nrate_limits:\n  tools:\n    calculator: { max: 1 }\n",
        {
          responses: [
            { tool_calls: [{ name: "calculator", arguments: { expression: "1+1" } }, { name: "calculator", arguments: { expression: "2+2" } }, write("a.md")] },
            { text: "done" },
          ],
        },
        {},
        dir,
      );
      const { run, store, context } = await start(agent, "go");
      decide(store, run.runId, "call_1_3", { role: "lead" });
      decide(store, run.runId, "call_1_3", { role: "security" });
      await AgentRun.open(agent, run.runId, { store, context }).resume();
      return store.read(run.runId).map((event) => canonicalJson(event)).join("\n");
    };
    const first = await once();
    expect(await once()).toBe(first);
    expect(first).toContain('"reason":"rate_limited"');
    expect(first).toContain('"type":"approval.granted"');
  });
});

describe("resume with a freshly built agent (as the CLI does)", () => {
  it("continues the script where the run stopped, rules and responses alike", async () => {
    const script = {
      rules: [{ when: { user_contains: "hello" }, respond: { text: "hi!" }, times: 1 }],
      responses: [{ tool_calls: [write("a.md")] }, { text: "saved" }],
    };
    const agent = await agentFrom(gated, script);
    const { run, store, context } = await start(agent, "save a note");
    decide(store, run.runId, "call_1_1", {});
    const fresh = await agentFrom(gated, script);
    const resumed = await AgentRun.open(fresh, run.runId, { store, context }).resume();
    expect(resumed).toMatchObject({ status: "completed", output: "saved" });
    expect(ofType(store.read(run.runId), "approval.requested")).toHaveLength(1);
  });
});
