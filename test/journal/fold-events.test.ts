/**
 * What each event does to the folded state, on hand-built logs: the state a resumed run, the
 * gate and `retrace trace` read. (fold.test.ts checks the fold against real recorded runs.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { fold, initialState, toolResultContent, UNKNOWN_OUTCOME_SKIPPED } from "../../src/journal/index.js";
import {
  START,
  approvalRequested,
  denied,
  eventsOf,
  expired,
  granted,
  guardrailFired,
  llmFailed,
  llmFinished,
  llmStarted,
  paused,
  resumed,
  retrievalMade,
  runFinished,
  runStarted,
  toolBlocked,
  toolFailed,
  toolFinished,
  toolRequested,
  toolStarted,
  toolUnknown,
  toolDecided,
  usage,
  userMessage,
} from "./events.js";

const stateAfter = (...payloads: Parameters<typeof eventsOf>[0]) => fold(eventsOf(payloads));

describe("the state before any event", () => {
  it("is a new run with nothing in it", () => {
    expect(initialState()).toEqual({
      runId: undefined,
      status: "new",
      agentName: undefined,
      system: undefined,
      messages: [],
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      cost: 0,
      steps: 0,
      turnSteps: 0,
      llmCalls: 0,
      pendingLlm: undefined,
      pendingCalls: [],
      pendingApprovals: [],
      output: "",
      error: undefined,
      waiting: undefined,
      lastSeq: 0,
      turns: 0,
      stepFailure: undefined,
      stepAttempts: { last: 0, interrupted: 0 },
      inputBlocked: false,
      turnViews: [],
      toolCalls: [],
      retrievals: [],
      guardrails: [],
      started: undefined,
      lastFinished: undefined,
      lastAt: undefined,
    });
    expect(fold([])).toEqual(initialState());
  });
});

describe("run and turn events", () => {
  it("run.started makes the run running under its agent's name and id", () => {
    const state = stateAfter(runStarted("support-bot"));
    expect(state).toMatchObject({ status: "running", agentName: "support-bot", runId: "run_1", lastSeq: 1 });
  });

  it("keeps the run id of the first event", () => {
    const state = fold([...eventsOf([runStarted()], "run_a"), ...eventsOf([userMessage("hi")], "run_b", 2)]);
    expect(state.runId).toBe("run_a");
  });

  it("a user message starts a turn: counted, steps since reset, error and wait cleared", () => {
    const state = stateAfter(
      runStarted(),
      userMessage("first"),
      llmFinished("one"),
      runFinished("failed", "", { error: { code: "max_steps", message: "out of steps" } }),
      userMessage("second"),
    );
    expect(state).toMatchObject({ status: "running", turns: 2, turnSteps: 0, steps: 1, error: undefined, waiting: undefined });
    expect(state.messages.filter((message) => message.role === "user")).toEqual([
      { role: "user", content: "first" },
      { role: "user", content: "second" },
    ]);
  });

  it("run.paused makes the run wait on what it names; run.resumed clears it", () => {
    const pending = [{ callId: "c1", tool: "write_file", roles: ["ops"] }];
    const waiting = stateAfter(runStarted(), userMessage("go"), paused(pending, "run_child"));
    expect(waiting.status).toBe("waiting");
    expect(waiting.waiting).toEqual({ pending, childRunId: "run_child" });
    const running = fold(eventsOf([resumed()], "run_1", 4), waiting);
    expect(running.status).toBe("running");
    expect(running.waiting).toBeUndefined();
  });

  it("run.finished sets the status, the output and the error, and ends any wait", () => {
    const error = { code: "max_steps", message: "out of steps" };
    const state = stateAfter(runStarted(), userMessage("go"), paused([]), runFinished("failed", "", { error }));
    expect(state).toMatchObject({ status: "failed", output: "", error, waiting: undefined });
    expect(stateAfter(runStarted(), runFinished("completed", "the answer"))).toMatchObject({ status: "completed", output: "the answer", error: undefined });
  });

  it("retrieval and guardrail events are kept for the view, and change nothing else but the last seq and time", () => {
    const before = stateAfter(runStarted(), userMessage("go"));
    const events = eventsOf([retrievalMade(), guardrailFired()], "run_1", 3);
    const after = fold(events, before);
    expect(after).toEqual({
      ...before,
      lastSeq: 4,
      lastAt: events[1]?.at,
      retrievals: [{ callId: "c", tool: "search_docs", mode: "tool", turn: 1, query: "q", chunks: [] }],
      guardrails: [{ seq: 4, direction: "output", action: "warn", rule: "r", detail: "fired" }],
    });
  });
});

describe("model calls", () => {
  it("llm.started is the pending model call, and its system prompt is the run's", () => {
    const state = stateAfter(runStarted(), userMessage("go"), llmStarted("You are terse."));
    expect(state.pendingLlm).toMatchObject({ type: "llm.started", seq: 3 });
    expect(state.system).toBe("You are terse.");
  });

  it("llm.failed ends the pending call and counts an attempt, not a step", () => {
    const state = stateAfter(runStarted(), userMessage("go"), llmStarted(), llmFailed(), llmStarted(), llmFailed());
    expect(state).toMatchObject({ pendingLlm: undefined, llmCalls: 2, steps: 0, turnSteps: 0 });
  });

  it("llm.finished counts a step and an attempt, adds usage, and the answer becomes the output", () => {
    const toolCalls = [{ id: "c1", name: "echo", arguments: '{"text":"x"}' }];
    const state = stateAfter(
      runStarted(),
      userMessage("go"),
      llmStarted(),
      llmFinished("", { toolCalls, usage: usage(10, 5, 2) }),
      llmStarted(),
      llmFinished("done", { usage: usage(20, 1, 0) }),
    );
    expect(state).toMatchObject({ pendingLlm: undefined, llmCalls: 2, steps: 2, turnSteps: 2, output: "done" });
    expect(state.usage).toEqual({ inputTokens: 30, outputTokens: 6, cachedInputTokens: 2 });
    expect(state.messages.slice(1)).toEqual([
      { role: "assistant", content: "", toolCalls },
      { role: "assistant", content: "done", toolCalls: [] },
    ]);
  });

  it("cost is the sum of the calls' costs, and null from the first call whose cost is unknown", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null, freq: 4 }), { maxLength: 8 }), (cents) => {
        const state = stateAfter(runStarted(), userMessage("go"), ...cents.map((cost) => llmFinished("x", { cost: cost === null ? null : cost / 100 })));
        const known = cents.includes(null) ? null : cents.reduce<number>((sum, cost) => sum + (cost as number) / 100, 0);
        if (known === null) expect(state.cost).toBeNull();
        else expect(state.cost).toBeCloseTo(known, 9);
      }),
    );
    expect(stateAfter(runStarted(), llmFinished("a", { cost: 0.25 }), llmFinished("b", { cost: 0.5 })).cost).toBe(0.75);
    expect(stateAfter(runStarted(), llmFinished("a", { cost: null }), llmFinished("b", { cost: 0.5 })).cost).toBeNull();
  });
});

describe("tool calls", () => {
  it("tool.requested adds a pending call with its step and arguments", () => {
    const state = stateAfter(runStarted(), toolRequested("c1", "echo", { text: "hi" }));
    expect(state.pendingCalls).toEqual([{ callId: "c1", name: "echo", step: 1, args: { text: "hi" }, rawArgs: undefined, phase: "requested" }]);
  });

  it("tool.started marks only its own call as started", () => {
    const state = stateAfter(runStarted(), toolRequested("c1"), toolRequested("c2"), toolStarted("c2"));
    expect(state.pendingCalls.map((call) => [call.callId, call.phase])).toEqual([
      ["c1", "requested"],
      ["c2", "started"],
    ]);
  });

  it("settling one call, whatever its outcome, takes only that call out of the pending calls", () => {
    const outcomes = [
      (id: string) => [toolFinished(id, "ok")],
      (id: string) => [toolFailed(id, "no")],
      (id: string) => [toolBlocked(id, "no")],
      // An unknown outcome settles only when a person decides not to run the call again.
      (id: string) => [toolUnknown(id, "crashed"), toolDecided(id, "skip")],
    ];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^c[0-9]{1,3}$/), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.constantFrom(...outcomes),
        (ids, pick, outcome) => {
          const settled = ids[pick % ids.length] as string;
          const state = stateAfter(runStarted(), ...ids.map((id) => toolRequested(id)), ...outcome(settled));
          expect(state.pendingCalls.map((call) => call.callId)).toEqual(ids.filter((id) => id !== settled));
          expect(state.messages).toEqual([expect.objectContaining({ role: "tool", toolCallId: settled })]);
        },
      ),
    );
  });

  it("tells the model a string result verbatim and any other result as canonical JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (result) => {
        const expected = typeof result === "string" ? result : canonicalJson(result);
        expect(toolResultContent(result)).toBe(expected);
        const state = stateAfter(runStarted(), toolRequested("c1"), toolFinished("c1", result));
        expect(state.messages).toEqual([{ role: "tool", toolCallId: "c1", name: "echo", content: expected, isError: false }]);
      }),
    );
    expect(toolResultContent("plain text")).toBe("plain text");
    expect(toolResultContent({ b: 1, a: "x" })).toBe('{"a":"x","b":1}');
  });

  it("tells the model how a call failed, was blocked or ended unknown, as an error", () => {
    const state = stateAfter(
      runStarted(),
      toolRequested("c1", "calc"),
      toolRequested("c2", "write_file"),
      toolRequested("c3", "deploy"),
      toolFailed("c1", "division by zero", "calc"),
      toolBlocked("c2", "policy[0] denies write_file", "write_file"),
      toolUnknown("c3", "the run crashed while deploy ran", "deploy"),
    );
    // An unknown outcome is not an outcome yet: the call waits for a person, the model hears nothing.
    expect(state.pendingCalls.map((call) => [call.callId, call.phase])).toEqual([["c3", "unknown"]]);
    const decided = stateAfter(
      runStarted(),
      toolRequested("c1", "calc"),
      toolRequested("c2", "write_file"),
      toolRequested("c3", "deploy"),
      toolFailed("c1", "division by zero", "calc"),
      toolBlocked("c2", "policy[0] denies write_file", "write_file"),
      toolUnknown("c3", "the run crashed while deploy ran", "deploy"),
      toolDecided("c3", "skip", "deploy"),
    );
    expect(decided.messages).toEqual([
      { role: "tool", toolCallId: "c1", name: "calc", content: "Error (threw): division by zero", isError: true },
      { role: "tool", toolCallId: "c2", name: "write_file", content: "Blocked (policy_denied): policy[0] denies write_file", isError: true },
      { role: "tool", toolCallId: "c3", name: "deploy", content: UNKNOWN_OUTCOME_SKIPPED, isError: true },
    ]);
    expect(decided.pendingCalls).toEqual([]);
  });

  it("a decision to run an unknown-outcome call again makes it pending to run, not settled", () => {
    const state = stateAfter(runStarted(), toolRequested("c1", "deploy"), toolStarted("c1", "deploy"), toolUnknown("c1", "crashed", "deploy"), toolDecided("c1", "rerun", "deploy"));
    expect(state.pendingCalls.map((call) => [call.callId, call.phase])).toEqual([["c1", "rerun"]]);
    expect(state.messages).toEqual([]);
  });
});

describe("approvals", () => {
  const requestedPair = [runStarted(), toolRequested("c1"), toolRequested("c2"), approvalRequested("c1", { roles: ["ops"] }), approvalRequested("c2", { roles: ["ops"] })];

  it("approval.requested adds a pending approval with nothing decided yet", () => {
    const state = stateAfter(runStarted(), approvalRequested("c1", { roles: ["ops", "security"], deadline: START + 60_000, tool: "deploy" }));
    expect(state.pendingApprovals).toEqual([
      { callId: "c1", tool: "deploy", argsHash: "hash-c1", roles: ["ops", "security"], granted: [], deadline: START + 60_000, denied: undefined, expired: false },
    ]);
  });

  it("a second request for the same call replaces the first (a resumed gate asks again)", () => {
    const state = stateAfter(runStarted(), approvalRequested("c1"), approvalRequested("c2"), granted("c1"), approvalRequested("c1", { argsHash: "new" }));
    expect(state.pendingApprovals.map((approval) => [approval.callId, approval.argsHash, approval.granted])).toEqual([
      ["c2", "hash-c2", []],
      ["c1", "new", []],
    ]);
  });

  it("a grant applies to its own call only, and a role is recorded once", () => {
    const state = stateAfter(...requestedPair, granted("c1", "ops"), granted("c1", "ops"), granted("c1", "security"));
    expect(state.pendingApprovals.map((approval) => [approval.callId, approval.granted])).toEqual([
      ["c1", ["ops", "security"]],
      ["c2", []],
    ]);
  });

  it("a grant or denial for one call leaves another call with the same arguments undecided", () => {
    const sameArgs = [runStarted(), approvalRequested("c1", { argsHash: "same" }), approvalRequested("c2", { argsHash: "same" })];
    const afterGrant = stateAfter(...sameArgs, granted("c1", "ops", "same"));
    expect(afterGrant.pendingApprovals.map((approval) => [approval.callId, approval.granted])).toEqual([
      ["c1", ["ops"]],
      ["c2", []],
    ]);
    const afterDenial = stateAfter(...sameArgs, denied("c1", "no", "ops", "same"));
    expect(afterDenial.pendingApprovals.map((approval) => [approval.callId, approval.denied?.reason])).toEqual([
      ["c1", "no"],
      ["c2", undefined],
    ]);
  });

  it("a grant for other arguments than those asked about does not count", () => {
    const state = stateAfter(runStarted(), approvalRequested("c1"), granted("c1", "ops", "hash-of-other-args"));
    expect(state.pendingApprovals[0]?.granted).toEqual([]);
  });

  it("a grant up to the deadline counts; one after it marks the approval expired instead", () => {
    const deadline = START + 60_000;
    const onTime = stateAfter(runStarted(), approvalRequested("c1", { deadline }), { ...granted("c1", "ops"), atMs: deadline });
    expect(onTime.pendingApprovals[0]).toMatchObject({ granted: ["ops"], expired: false });
    const late = stateAfter(runStarted(), approvalRequested("c1", { deadline }), { ...granted("c1", "ops"), atMs: deadline + 1 });
    expect(late.pendingApprovals[0]).toMatchObject({ granted: [], expired: true });
    const noDeadline = stateAfter(runStarted(), approvalRequested("c1"), { ...granted("c1", "ops"), atMs: START + 10 * 365 * 86_400_000 });
    expect(noDeadline.pendingApprovals[0]).toMatchObject({ granted: ["ops"], expired: false });
  });

  it("a denial applies to its own call and arguments only, with who denied and why", () => {
    const state = stateAfter(...requestedPair, denied("c2", "not on a Friday", "ops"), denied("c1", "other args", "ops", "hash-of-other-args"));
    expect(state.pendingApprovals.map((approval) => [approval.callId, approval.denied])).toEqual([
      ["c1", undefined],
      ["c2", { role: "ops", reason: "not on a Friday" }],
    ]);
  });

  it("approval.expired marks its own call only", () => {
    const state = stateAfter(...requestedPair, expired("c2"));
    expect(state.pendingApprovals.map((approval) => [approval.callId, approval.expired])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
  });

  it("settling a call removes its approval and leaves the others", () => {
    const state = stateAfter(...requestedPair, toolBlocked("c1", "denied by ops: no"));
    expect(state.pendingApprovals.map((approval) => approval.callId)).toEqual(["c2"]);
    expect(state.pendingCalls.map((call) => call.callId)).toEqual(["c2"]);
  });
});
