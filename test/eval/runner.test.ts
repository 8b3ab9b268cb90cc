/** The eval runner in-process: how `t` drives a run, how a case's verdict is reached, and its guards. */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/canonical/index.js";
import { collectCases, defineEval, match, type EvalSpec } from "../../src/eval/dsl/index.js";
import type { AttemptResult, CaseResult } from "../../src/eval/report/schema.js";
import { runCases, type PlannedCase, type RunCasesOptions } from "../../src/eval/runner/index.js";
import type { RunEvent, Scorer } from "../../src/contracts/index.js";
import { viewRun } from "../../src/journal/index.js";

const agent = { name: "runner-test", max_steps: 4, llm: { provider: "openai" as const }, tools: ["calculator"] };
const calculates = {
  responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "2 + 2" } }] }, { text: "2 + 2 = 4." }],
};

async function plan(specs: EvalSpec[]): Promise<PlannedCase[]> {
  const cases = await collectCases(undefined, async () => specs.forEach((spec) => defineEval(spec)));
  return cases.map((definition) => ({ id: `test > ${definition.name}`, file: "test", case: definition }));
}

async function run(specs: EvalSpec[], options: Partial<RunCasesOptions> = {}): Promise<CaseResult[]> {
  return runCases(await plan(specs), { mode: "mock", ...options });
}

const only = (results: CaseResult[]): AttemptResult => {
  const attempt = results[0]?.attempts[0];
  if (!attempt) throw new Error("no attempt");
  return attempt;
};

describe("t drives one run", () => {
  it("evaluates assertions after the body, over every turn", async () => {
    const [result] = await run([
      {
        name: "two turns",
        config: agent,
        mock: { responses: [{ text: "Ask me." }, ...calculates.responses] },
        test: async (t) => {
          await t.send("hello");
          t.calledTool("calculator"); // recorded before the turn that calls it
          t.check(t.reply, "Ask me.");
          await t.send("2 + 2?");
          t.check(t.turns.map((turn) => turn.input), ["hello", "2 + 2?"]);
        },
      },
    ]);
    expect(result?.status).toBe("passed");
    expect(result?.attempts[0]?.run).toMatchObject({ status: "completed", turns: 2, steps: 3, toolCalls: 1, output: "2 + 2 = 4." });
  });

  it("records an agent failure instead of throwing it", async () => {
    const results = await run([
      {
        name: "provider down",
        config: agent,
        mock: { responses: [{ error: { status: 401, message: "bad key" } }] },
        test: async (t) => {
          const outcome = await t.send("hi");
          t.check(outcome.status, "failed");
          t.failed({ code: "provider_auth" });
        },
      },
    ]);
    expect(results[0]?.status).toBe("passed");
  });

  it("gives the same log, event for event, every time (a virtual clock and run ids from the case)", async () => {
    const logs: RunEvent[][] = [];
    const spec = (name: string): EvalSpec => ({
      name,
      config: agent,
      mock: { responses: [{ error: { status: 429 } }, ...calculates.responses] },
      test: async (t) => {
        await t.send("2 + 2?");
        logs.push([...t.events]);
        t.completed();
      },
    });
    await run([spec("same")]);
    await run([spec("same")], { concurrency: 1 });
    expect(logs).toHaveLength(2);
    expect(canonicalJson(logs[1])).toBe(canonicalJson(logs[0]));
    expect(logs[0]?.[0]?.runId).toMatch(/^eval_[0-9a-f]{12}$/);
  });
});

describe("a case's verdict", () => {
  it("a soft failure lowers the score but passes; the threshold can still fail it", async () => {
    const spec = (threshold?: number): EvalSpec => ({
      name: `soft ${threshold ?? "none"}`,
      config: agent,
      mock: calculates,
      ...(threshold !== undefined ? { threshold } : {}),
      test: async (t) => {
        await t.send("2 + 2?");
        t.completed();
        t.outputContains("five", { severity: "soft" });
      },
    });
    const results = await run([spec(), spec(0.6)]);
    expect(results.map((result) => [result.status, result.score])).toEqual([
      ["passed", 0.5],
      ["failed", 0.5],
    ]);
    expect(results[1]?.attempts[0]?.errors).toEqual(["score 0.50 is below the threshold 0.6"]);
  });

  it("skipped assertions are left out of the score, never counted as passed", async () => {
    const results = await run([
      {
        name: "unknown price",
        config: agent,
        mock: calculates,
        test: async (t) => {
          await t.send("2 + 2?");
          t.maxCost(1);
          t.outputContains("4", { severity: "soft" });
          t.outputContains("nope", { severity: "soft" });
        },
      },
    ]);
    const attempt = only(results);
    expect(attempt.assertions.map((assertion) => [assertion.status, assertion.value])).toEqual([
      ["skipped", null],
      ["passed", 1],
      ["failed", 0],
    ]);
    // The mean of 1 and 0: the skip is neither a 1 (0.67) nor a 0 (0.33).
    expect(attempt.score).toBe(0.5);
  });

  it("a case whose every assertion was skipped fails: nothing was checked", async () => {
    const spec = (threshold: number): EvalSpec => ({
      name: `all skipped, threshold ${threshold}`,
      config: agent,
      mock: calculates,
      threshold,
      test: async (t) => {
        await t.send("2 + 2?");
        t.maxCost(0.0001); // the scripted model has no price: skipped
        await t.judge({ name: "test/cannot-judge", description: "always skips", score: () => ({ skipped: true, reason: "cannot judge" }) });
      },
    });
    const results = await run([spec(0), spec(1)]);
    for (const result of results) {
      expect(result.status).toBe("failed");
      expect(result.score).toBeNull();
      expect(result.attempts[0]?.errors).toEqual(["every assertion was skipped; nothing was checked"]);
    }
  });

  it("a case that cannot be set up is an error, not a failure", async () => {
    const results = await run([{ name: "no mock", config: agent, test: (t) => t.completed() }]);
    expect(results[0]?.status).toBe("error");
    expect(only(results).errors[0]).toMatch(/has no mock script/);
  });
});

describe("mocks that cannot lie", () => {
  it("tool mocks answer in order, and one call too many fails the call and the case", async () => {
    const results = await run([
      {
        name: "results run out",
        config: agent,
        tools: { calculator: { results: [{ value: 1 }] } },
        mock: {
          responses: [
            { tool_calls: [{ name: "calculator", arguments: { expression: "1" } }] },
            { tool_calls: [{ name: "calculator", arguments: { expression: "1" } }] },
            { text: "done" },
          ],
        },
        test: async (t) => {
          await t.send("twice");
          t.check(t.toolCalls.map((call) => call.status), ["finished", "failed"]);
          t.check(t.toolCalls[1]?.error?.message, "mock for calculator has no result for call #2 (it holds 1)");
        },
      },
    ]);
    // Every assertion held, but the run needed a result the mock does not have: not a pass.
    expect(results[0]?.status).toBe("failed");
    expect(only(results).assertions.every((assertion) => assertion.status === "passed")).toBe(true);
    expect(only(results).errors).toEqual(["the tool mock ran out: mock for calculator has no result for call #2 (it holds 1)"]);
  });

  it("a network request under --mock fails the case that made it, and only that case", async () => {
    const original = globalThis.fetch;
    const results = await run(
      [
        {
          name: "reaches out",
          config: agent,
          mock: calculates,
          tools: { calculator: async () => (await fetch("https://example.com/a")).status },
          test: async (t) => {
            await t.send("2 + 2?");
            t.completed();
          },
        },
        {
          name: "stays home",
          config: agent,
          mock: calculates,
          test: async (t) => {
            await t.send("2 + 2?");
            t.completed();
          },
        },
      ],
      { concurrency: 2 },
    );
    expect(results.map((result) => result.status)).toEqual(["failed", "passed"]);
    expect(results[0]?.attempts[0]?.errors[0]).toMatch(/^network request under --mock: GET https:\/\/example\.com\/a;/);
    // The tool saw the refusal as a failure of its own.
    expect(globalThis.fetch).toBe(original);
  });

  it("a case that runs over its timeout fails, and its run is aborted", async () => {
    let aborted = false;
    const results = await run([
      {
        name: "hangs",
        config: agent,
        timeout: 30,
        mock: calculates,
        tools: {
          calculator: (_args: unknown, context: { signal: AbortSignal }) =>
            new Promise((resolve) => context.signal.addEventListener("abort", () => ((aborted = true), resolve(0)))),
        },
        test: async (t) => {
          await t.send("2 + 2?");
          t.completed();
        },
      },
    ]);
    expect(results[0]?.status).toBe("failed");
    expect(only(results).errors).toContain('timed out after 30 ms (set "timeout" on the case or --timeout)');
    expect(aborted).toBe(true);
  });
});

describe("judges are runs of their own", () => {
  it("records the judge's run in the case's store, linked to the case's run", async () => {
    let judgeEvents: RunEvent[] = [];
    const results = await run([
      {
        name: "judged",
        config: agent,
        mock: calculates,
        test: async (t) => {
          await t.send("2 + 2?");
          const verdict = await t.judge("llm-judge", { rubric: "Correct sum", mock: { responses: [{ text: '{"score": 1, "reason": "4 is right"}' }] } });
          t.check(verdict.reason, "judge: 4 is right");
          judgeEvents = t.store.read(`${t.runId}.judge1`);
        },
      },
    ]);
    expect(results[0]?.status).toBe("passed");
    expect(only(results).judgeRuns).toEqual([`${only(results).runId}.judge1`]);
    expect(judgeEvents[0]).toMatchObject({ type: "run.started", agent: { name: "judge:llm-judge" }, parent: { runId: only(results).runId, callId: "judge_1" } });
    expect(judgeEvents.map((event) => event.type)).toEqual(["run.started", "message", "llm.started", "llm.finished", "run.finished"]);
  });

  it("under --mock, a judge without a script fails its assertion and says how to fix it", async () => {
    const results = await run([
      {
        name: "unscripted judge",
        config: agent,
        mock: calculates,
        test: async (t) => {
          await t.send("2 + 2?");
          await t.judge("llm-judge", { rubric: "Correct sum" });
        },
      },
    ]);
    expect(only(results).assertions[0]?.reason).toMatch(/llm-judge could not score: llm-judge under --mock needs a judge script/);
  });
});

describe("t.run", () => {
  it("is the view of the whole log after each turn, and changing a view changes neither the log nor later views", async () => {
    const seen: boolean[] = [];
    const finishedUsage: unknown[] = [];
    const [result] = await run([
      {
        name: "views",
        config: agent,
        mock: {
          responses: [
            { tool_calls: [{ name: "calculator", arguments: { expression: "2 + 2" } }], usage: { input_tokens: 10, output_tokens: 1 } },
            { text: "2 + 2 = 4.", usage: { input_tokens: 20, output_tokens: 2 } },
            { text: "Again: 4.", usage: { input_tokens: 30, output_tokens: 3 } },
          ],
        },
        test: async (t) => {
          await t.send("2 + 2?");
          seen.push(canonicalJson(t.run) === canonicalJson(viewRun(t.events)));
          // A case may sort or edit what it reads: its own copy, not the run's state.
          t.toolCalls.reverse();
          t.toolCalls.push({ ...(t.toolCalls[0] as (typeof t.toolCalls)[number]), callId: "made-up" });
          t.usage.inputTokens += 1000;
          await t.send("again?");
          seen.push(canonicalJson(t.run) === canonicalJson(viewRun(t.events)));
          finishedUsage.push(...t.events.filter((event) => event.type === "run.finished").map((event) => (event as { usage?: unknown }).usage));
          t.check(t.run.toolCalls.length, 1);
          t.check(t.run.turns.length, 2);
        },
      },
    ]);
    expect(result?.status).toBe("passed");
    expect(seen).toEqual([true, true]);
    expect(finishedUsage.map((usage) => (usage as { inputTokens: number }).inputTokens)).toEqual([30, 60]);
  });
});

describe("scoring", () => {
  it("scores scorers and predicates that answer at once or later alike, and a scorer that fails fails its assertion only", async () => {
    // What a scorer written in JavaScript may return: anything, at once or as a promise.
    const answer = (result: unknown) => ({ name: "custom", description: "test", score: () => result }) as unknown as Scorer;
    const results = await run([
      {
        name: "mixed scorers",
        config: agent,
        mock: calculates,
        test: async (t) => {
          await t.send("2 + 2?");
          t.check(t.reply, (reply) => reply === "2 + 2 = 4.");
          t.check(t.reply, async (reply) => reply === "2 + 2 = 4.");
          t.check(t.reply, (reply) => Promise.resolve(reply === "nope"));
          t.check(t.reply, match.scorer(answer({ value: 1, pass: true, reason: "at once" })));
          t.check(t.reply, match.scorer(answer(Promise.resolve({ value: 0.5, pass: true, reason: "later" }))));
          t.check(t.reply, match.scorer(answer({ value: 2, pass: true, reason: "out of range" }), undefined, { severity: "soft" }));
          t.check(t.reply, match.scorer(answer(Promise.resolve({ value: 2, pass: true, reason: "" })), undefined, { severity: "soft" }));
          t.check(t.reply, () => {
            throw new Error("predicate broke");
          });
          t.check(t.reply, match.scorer({ name: "rejects", description: "test", score: () => Promise.reject(new Error("scorer broke later")) }));
          t.check(t.reply, match.scorer({ name: "throws", description: "test", score: () => { throw new Error("scorer broke at once"); } }));
          const odd = { get then(): never { throw new Error("then broke"); } };
          t.check(t.reply, match.scorer(answer(odd)));
        },
      },
    ]);
    const assertions = only(results).assertions;
    expect(assertions.map((assertion) => [assertion.status, assertion.value])).toEqual([
      ["passed", 1],
      ["passed", 1],
      ["failed", 0],
      ["passed", 1],
      ["passed", 0.5],
      ["failed", 0],
      ["failed", 0],
      ["failed", 0],
      ["failed", 0],
      ["failed", 0],
      ["failed", 0],
    ]);
    expect(assertions[10]?.reason).toBe("custom could not score: then broke");
    expect(assertions[2]?.reason).toMatch(/does not hold for "2 \+ 2 = 4\."/);
    expect(assertions[5]?.reason).toMatch(/^custom could not score: scorer "custom" returned value 2; a score is a number from 0 to 1/);
    expect(assertions[6]?.reason).toMatch(/^custom could not score: scorer "custom" returned value 2/);
    expect(assertions[7]?.reason).toBe("predicate could not score: predicate broke");
    expect(assertions[8]?.reason).toBe("rejects could not score: scorer broke later");
    expect(assertions[9]?.reason).toBe("throws could not score: scorer broke at once");
  });
});

describe("running many", () => {
  it("repeats cases and stops starting new ones after --bail failures", async () => {
    let count = 0;
    const results = await run(
      [
        { name: "a", config: agent, mock: calculates, test: async (t) => (await t.send("x"), t.check(++count, 1)) },
        { name: "b", config: agent, mock: calculates, test: async (t) => (await t.send("x"), t.completed()) },
      ],
      { repeat: 2, bail: 1, concurrency: 1 },
    );
    expect(results[0]).toMatchObject({ status: "failed", flaky: true, passRate: 0.5 });
    expect(results[1]?.status).toBe("skipped");
  });

  it("reports progress once per case, in completion order", async () => {
    const seen: string[] = [];
    await run(
      ["x", "y", "z"].map((name) => ({ name, config: agent, mock: calculates, test: async (t) => (await t.send("q"), t.completed()) })),
      { onCaseDone: (result, done, total) => seen.push(`${result.name} ${done}/${total}`) },
    );
    expect(seen.map((entry) => entry.split(" ")[1])).toEqual(["1/3", "2/3", "3/3"]);
    expect(seen.map((entry) => entry.split(" ")[0]).sort()).toEqual(["x", "y", "z"]);
    expect(seen).toHaveLength(3);
  });
});
