/** The scorers that read the run itself: run-status, retrieved-chunk, guardrail, budgets and llm-judge. */
import { describe, expect, it } from "vitest";
import type { EventPayload, JudgeRequest, JudgeService } from "../../src/contracts/index.js";
import { viewRun } from "../../src/journal/index.js";
import { JUDGE_SYSTEM_PROMPT, budgetsScorer, guardrailScorer, llmJudgeScorer, parseJudgement, retrievedChunkScorer, runStatusScorer } from "../../scorers/index.js";
import { answer, blockedCall, buildLog, done, finished, guardrail, requested, retrieval, user } from "./log.js";
import { score, scoreAsync } from "./scoring.js";

const finishedRun = (status: "completed" | "failed", error?: { code: string; message: string }): EventPayload => ({
  type: "run.finished",
  status,
  output: status === "completed" ? "ok" : "",
  ...(error ? { error } : {}),
  usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
  cost: null,
  steps: 1,
});

describe("run-status", () => {
  it("passes when the last turn ended as expected, showing any error", () => {
    expect(score(runStatusScorer, { events: buildLog([user("x"), done("ok")]), options: { status: "completed" } })).toEqual({ value: 1, pass: true, reason: "the run was completed" });
    expect(score(runStatusScorer, { events: buildLog([user("x"), done("", "failed")]), options: { status: "failed" } })).toEqual({
      value: 1,
      pass: true,
      reason: "the run was failed (max_steps: out of steps)",
    });
  });

  it("fails on another status, saying what the run did", () => {
    const status = (payloads: EventPayload[], expected: "completed" | "failed" | "waiting") => score(runStatusScorer, { events: buildLog(payloads), options: { status: expected } });
    expect(status([], "completed")).toEqual({ value: 0, pass: false, reason: "expected the run to be completed; it never started a turn" });
    expect(status([user("x")], "completed").reason).toBe("expected the run to be completed; it did not finish its turn");
    expect(status([user("x"), done("ok")], "failed").reason).toBe("expected the run to be failed; it was completed");
    expect(status([user("x"), { type: "run.paused", reason: "approval", pending: [] }], "completed").reason).toBe("expected the run to be completed; it was waiting");
  });

  it("with a code, fails a run that failed with another code or none, naming both", () => {
    const failed = buildLog([user("x"), finishedRun("failed", { code: "provider_auth", message: "OpenAI rejected the API key" })]);
    expect(score(runStatusScorer, { events: failed, options: { status: "failed", code: "provider_auth" } }).pass).toBe(true);
    expect(score(runStatusScorer, { events: failed, options: { status: "failed", code: "max_steps" } })).toEqual({
      value: 0,
      pass: false,
      reason: "the run failed with provider_auth, expected max_steps (provider_auth: OpenAI rejected the API key)",
    });
    expect(score(runStatusScorer, { events: buildLog([user("x"), finishedRun("failed")]), options: { status: "failed", code: "max_steps" } }).reason).toBe(
      "the run failed with no error code, expected max_steps",
    );
    expect(score(runStatusScorer, { events: buildLog([user("x"), done("ok")]), options: { status: "completed", code: "max_steps" } }).pass).toBe(false);
  });

  it("clips a long error message", () => {
    const long = buildLog([user("x"), finishedRun("failed", { code: "tool_failed", message: "x".repeat(400) })]);
    expect(score(runStatusScorer, { events: long, options: { status: "completed" } }).reason).toBe(`expected the run to be completed; it was failed (tool_failed: ${"x".repeat(159)}…)`);
  });
});

describe("retrieved-chunk", () => {
  const events = buildLog([
    retrieval("c1", "keys", [
      { id: "guide.md#2", source: "../docs/guide.md", text: "Request keys are sha256 digests" },
      { id: "faq.md#1", source: "faq.md", text: "Other things" },
    ]),
  ]);
  const chunk = (options: object) => score(retrievedChunkScorer, { events, options });

  it("finds a chunk by text, ignoring case unless case-sensitive", () => {
    expect(chunk({ text: "REQUEST KEYS" })).toEqual({ value: 1, pass: true, reason: 'retrieved guide.md#2 (rank 1) containing "REQUEST KEYS"' });
    expect(chunk({ text: "REQUEST KEYS", caseSensitive: true }).pass).toBe(false);
    expect(chunk({ text: "Request keys", caseSensitive: true }).pass).toBe(true);
  });

  it("finds a chunk by id, by source or the end of its path, and within a rank", () => {
    expect(chunk({ id: "faq.md#1" })).toEqual({ value: 1, pass: true, reason: "retrieved faq.md#1 (rank 2) with id faq.md#1" });
    expect(chunk({ source: "guide.md" })).toMatchObject({ pass: true, reason: "retrieved guide.md#2 (rank 1) from guide.md" });
    expect(chunk({ source: "faq.md" }).pass).toBe(true);
    expect(chunk({ source: "docs/guide.md" }).pass).toBe(true);
    expect(chunk({ source: "ide.md" }).pass).toBe(false);
    expect(chunk({ id: "faq.md#1", maxRank: 2 })).toMatchObject({ pass: true, reason: "retrieved faq.md#1 (rank 2) with id faq.md#1 at rank <= 2" });
    expect(chunk({ id: "faq.md#1", maxRank: 1 }).pass).toBe(false);
  });

  it("needs every condition given to hold on one chunk", () => {
    expect(chunk({ text: "other", id: "guide.md#2" }).pass).toBe(false);
    expect(chunk({ text: "other", source: "guide.md" }).pass).toBe(false);
    expect(chunk({ text: "other", id: "faq.md#1", source: "faq.md", maxRank: 2 }).reason).toBe(
      'retrieved faq.md#1 (rank 2) containing "other" with id faq.md#1 from faq.md at rank <= 2',
    );
  });

  it("fails saying what was retrieved, or that nothing was", () => {
    expect(chunk({ text: "missing" })).toEqual({ value: 0, pass: false, reason: 'no retrieved chunk containing "missing"; retrieved: guide.md#2#rank1, faq.md#1#rank2' });
    expect(score(retrievedChunkScorer, { events: buildLog([]), options: { id: "x" } }).reason).toBe("no chunk with id x was retrieved: the run made no retrieval");
    expect(score(retrievedChunkScorer, { events: buildLog([retrieval("c1", "q", [])]), options: { id: "x" } }).reason).toBe("no retrieved chunk with id x; retrieved: (no chunks)");
    const many = buildLog([retrieval("c1", "q", Array.from({ length: 10 }, (_, i) => ({ id: `d#${i}`, source: "d", text: "t" })))]);
    expect(score(retrievedChunkScorer, { events: many, options: { id: "x" } }).reason).toBe(
      `no retrieved chunk with id x; retrieved: ${Array.from({ length: 8 }, (_, i) => `d#${i}#rank${i + 1}`).join(", ")}`,
    );
  });
});

describe("guardrail", () => {
  const events = buildLog([guardrail("block", "prompt_injection:ignore", "input"), guardrail("warn", "output_pattern:refund")]);

  it("passes on a firing with the action, rule and direction asked for, showing it", () => {
    expect(score(guardrailScorer, { events, options: { action: "block" } })).toEqual({ value: 1, pass: true, reason: "input block by prompt_injection:ignore: prompt_injection:ignore fired" });
    expect(score(guardrailScorer, { events, options: { action: "warn", rule: "output_pattern:refund", direction: "output" } }).pass).toBe(true);
  });

  it("fails when the rule or the direction differ, saying what fired", () => {
    expect(score(guardrailScorer, { events, options: { action: "block", rule: "secret:openai_key" } })).toEqual({
      value: 0,
      pass: false,
      reason: "expected a guardrail block by secret:openai_key; guardrail events: input block by prompt_injection:ignore, output warn by output_pattern:refund",
    });
    expect(score(guardrailScorer, { events, options: { action: "block", direction: "output" } }).reason).toMatch(/^expected a output guardrail block; guardrail events: /);
    expect(score(guardrailScorer, { events: buildLog([]), options: { action: "redact" } }).reason).toBe("expected a guardrail redact; guardrail events: none");
  });
});

describe("budgets", () => {
  const priced = (cost: number | null, usage = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0 }): EventPayload => ({
    type: "llm.finished",
    step: 1,
    attempt: 1,
    requestKey: "k",
    response: { text: "x", toolCalls: [], stopReason: "end", usage },
    cost,
    durationMs: 1,
  });
  const run = buildLog([user("go"), priced(0.01), requested("c1", "search", {}), finished("c1", "search", null), requested("c2", "write", {}), blockedCall("c2", "write", "policy_denied"), priced(0.02)]);
  const budget = (options: object, events = run) => score(budgetsScorer, { events, options });

  it("passes within every budget given, listing each", () => {
    expect(budget({ maxSteps: 2, maxTokens: 240, maxInputTokens: 200, maxOutputTokens: 40, maxCost: 0.03, maxToolCalls: 2 })).toEqual({
      value: 1,
      pass: true,
      reason: "within budget: steps 2 of 2, tokens 240 of 240, input tokens 200 of 200, output tokens 40 of 40, cost $0.030000 of $0.030000, tool calls 2 of 2",
    });
  });

  it("fails over any budget, naming only the ones exceeded, with what was used", () => {
    expect(budget({ maxTokens: 239, maxInputTokens: 199, maxOutputTokens: 39, maxToolCalls: 1, maxSteps: 5 })).toEqual({
      value: 0.5,
      pass: false,
      reason: "over budget: tokens 240 of 239, input tokens 200 of 199, output tokens 40 of 39, tool calls 2 of 1",
      details: { used: { steps: 2, tokens: 240, "input tokens": 200, "output tokens": 40, "tool calls": 2 } },
    });
    expect(budget({ maxCost: 0.02 })).toMatchObject({ pass: false, reason: "over budget: cost $0.030000 of $0.020000", details: { used: { cost: 0.03 } } });
  });

  it("scores the worst overrun: twice the budget is 0.5, four times 0.25", () => {
    // steps 2 of 1 and tokens 240 of 200: the worse one (twice) decides.
    expect(budget({ maxSteps: 1, maxTokens: 200 }).value).toBe(0.5);
    expect(budget({ maxOutputTokens: 10 }).value).toBe(0.25);
    expect(budget({ maxOutputTokens: 10, maxSteps: 1 }).value).toBe(0.25);
    expect(budget({ maxToolCalls: 0.5 }).value).toBe(0.25);
    expect(budget({ maxToolCalls: 0 }).value).toBeLessThan(1e-12);
  });

  it("counts tokens a call did not report as unknown: over the limit all the same, under it not checked", () => {
    const noUsage = { ...(priced(0) as Record<string, unknown>), response: { text: "x", toolCalls: [], stopReason: "end", usage: null } } as unknown as EventPayload;
    const partly = buildLog([user("go"), priced(0), noUsage]);
    expect(budget({ maxTokens: 1000 }, partly)).toEqual({
      skipped: true,
      reason: "cannot check tokens (1 model call(s) reported no usage)",
      details: { used: {} },
    });
    expect(budget({ maxTokens: 100, maxInputTokens: 1000, maxOutputTokens: 10 }, partly)).toMatchObject({
      pass: false,
      reason: "over budget: tokens 120 of 100, output tokens 20 of 10; unknown: input tokens (1 model call(s) reported no usage)",
    });
    expect(budget({ maxSteps: 5 }, partly)).toEqual({ value: 1, pass: true, reason: "within budget: steps 2 of 5" });
    // A lower bound exactly at the limit says nothing either.
    expect(budget({ maxTokens: 120 }, partly)).toMatchObject({ skipped: true, reason: "cannot check tokens (1 model call(s) reported no usage)" });
    const unpricedToo = buildLog([user("go"), { ...(noUsage as Record<string, unknown>), cost: null } as unknown as EventPayload]);
    expect(budget({ maxTokens: 1000, maxCost: 1 }, unpricedToo).reason).toBe(
      "cannot check tokens (1 model call(s) reported no usage), cost (the model has no price: set llm.prices)",
    );
  });

  it("skips a run without budgets, and never passes one whose cost cannot be checked", () => {
    expect(budget({})).toEqual({ skipped: true, reason: "no budget given" });
    const unpriced = buildLog([user("go"), priced(null)]);
    expect(budget({ maxCost: 1 }, unpriced)).toEqual({ skipped: true, reason: "cannot check cost (the model has no price: set llm.prices)", details: { used: {} } });
    expect(budget({ maxCost: 1, maxSteps: 5 }, unpriced)).toEqual({
      skipped: true,
      reason: "cannot check cost (the model has no price: set llm.prices); within budget: steps 1 of 5",
      details: { used: { steps: 1 } },
    });
    expect(budget({ maxCost: 1, maxSteps: 0 }, unpriced)).toMatchObject({
      pass: false,
      reason: "over budget: steps 1 of 0; unknown: cost (the model has no price: set llm.prices)",
      details: { used: { steps: 1 } },
    });
  });
});

describe("parseJudgement", () => {
  it("reads a JSON verdict anywhere in the answer: score, pass and reason", () => {
    expect(parseJudgement('Here: {"score": 0.8, "pass": false, "reason": "close"} done', 0.5)).toEqual({ value: 0.8, pass: false, reason: "judge: close", details: { score: 0.8 } });
  });

  it("decides pass from passAt when the judge gives no verdict, at passAt included", () => {
    expect(parseJudgement('{"score": 0.5}', 0.5)).toMatchObject({ pass: true, value: 0.5, reason: "judge: (no reason given)" });
    expect(parseJudgement('{"score": 0.49}', 0.5)).toMatchObject({ pass: false });
    expect(parseJudgement('{"score": 0.7, "pass": "yes"}', 0.9)).toMatchObject({ pass: false });
  });

  it("accepts scores from 0 to 1 only", () => {
    expect(parseJudgement('{"score": 0}', 0.5)).toEqual({ value: 0, pass: false, reason: "judge: (no reason given)", details: { score: 0 } });
    expect(parseJudgement('{"score": 1}', 0.5)).toEqual({ value: 1, pass: true, reason: "judge: (no reason given)", details: { score: 1 } });
    for (const text of ['{"score": 1.5, "pass": true}', '{"score": -0.1, "pass": true}', '{"score": "0.9", "pass": true}', '{"pass": true}']) {
      expect(parseJudgement(text, 0.5)).toEqual({ value: 0, pass: false, reason: `the judge's answer is not {"score", "pass", "reason"} JSON or PASS/FAIL: ${JSON.stringify(text)}` });
    }
  });

  it("accepts an answer that starts with PASS or FAIL, with the rest as the reason", () => {
    expect(parseJudgement("PASS: the total is right", 0.5)).toEqual({ value: 1, pass: true, reason: "judge: the total is right" });
    expect(parseJudgement("  pass - looks right", 0.5)).toEqual({ value: 1, pass: true, reason: "judge: looks right" });
    expect(parseJudgement("FAIL:wrong unit", 0.5)).toEqual({ value: 0, pass: false, reason: "judge: wrong unit" });
    expect(parseJudgement("FAIL", 0.5)).toEqual({ value: 0, pass: false, reason: "judge: fail" });
    expect(parseJudgement("PASS\n", 0.5)).toEqual({ value: 1, pass: true, reason: "judge: pass" });
    expect(parseJudgement("PASS {not json}", 0.5)).toMatchObject({ pass: true, reason: "judge: {not json}" });
    expect(parseJudgement(`PASS: ${"y".repeat(300)}`, 0.5).reason).toBe(`judge: ${"y".repeat(199)}…`);
  });

  it("fails loudly on anything else, quoting the answer", () => {
    for (const text of ["I think it is good", "**PASS** it is right", "PASSED", "The verdict: PASS"]) {
      expect(parseJudgement(text, 0.5)).toEqual({ value: 0, pass: false, reason: `the judge's answer is not {"score", "pass", "reason"} JSON or PASS/FAIL: ${JSON.stringify(text)}` });
    }
    expect(parseJudgement("z".repeat(400), 0.5).reason).toBe(`the judge's answer is not {"score", "pass", "reason"} JSON or PASS/FAIL: "${"z".repeat(159)}…"`);
  });
});

describe("llm-judge", () => {
  const service = (text: string, status: "completed" | "failed" = "completed", error?: { code: string; message: string }): JudgeService & { asked: JudgeRequest[] } => {
    const asked: JudgeRequest[] = [];
    return {
      asked,
      ask: async (request) => {
        asked.push(request);
        return { runId: "run_judge", status, text, error };
      },
    };
  };
  const twoTurns = buildLog([user("What is 2+2?"), answer("", 1, [{ id: "c1", name: "calc", arguments: "{}" }]), requested("c1", "calc", { e: "2+2" }), finished("c1", "calc", 4), answer("4", 2), done("4"), user("And 3+3?"), answer("6"), done("6")]);
  const judge = (judgeService: JudgeService | undefined, options: object, expected?: unknown, events = twoTurns) =>
    scoreAsync(llmJudgeScorer, { events, value: "6", expected, options: { rubric: "  Is it correct?  ", ...options }, judge: judgeService });

  it("asks the judge with the rubric, every user turn, the response and the reference, under its system prompt", async () => {
    const asking = service('{"score": 1, "pass": true, "reason": "right"}');
    expect(await judge(asking, {}, "six")).toEqual({ value: 1, pass: true, reason: "judge: right", details: { score: 1, judgeRunId: "run_judge" } });
    expect(asking.asked).toEqual([
      {
        label: "llm-judge",
        system: JUDGE_SYSTEM_PROMPT,
        prompt: "Rubric:\nIs it correct?\n\nUser input:\nWhat is 2+2?\n---\nAnd 3+3?\n\nResponse:\n6\n\nReference answer:\nsix",
      },
    ]);
  });

  it("tells the judge exactly how to answer", () => {
    expect(JUDGE_SYSTEM_PROMPT).toBe(
      "You are an impartial evaluator. Grade the response strictly against the rubric. " +
        'Answer with only a JSON object: {"score": <number from 0 to 1>, "pass": <true or false>, "reason": "<one sentence>"}.',
    );
  });

  it("leaves the reference out when there is none, shows tool calls when asked, and says when there was no input", async () => {
    const asking = service("PASS");
    await judge(asking, { includeToolCalls: true });
    expect(asking.asked[0]?.prompt).toBe('Rubric:\nIs it correct?\n\nUser input:\nWhat is 2+2?\n---\nAnd 3+3?\n\nResponse:\n6\n\nTool calls:\ncalc({"e":"2+2"}) finished');
    await judge(asking, {}, undefined, buildLog([]));
    expect(asking.asked[1]?.prompt).toBe("Rubric:\nIs it correct?\n\nUser input:\n(none)\n\nResponse:\n6");
    await judge(asking, {}, 0);
    expect(asking.asked[2]?.prompt).toMatch(/\n\nReference answer:\n0$/);
  });

  it("passes the label, model, mock and llm settings on only when given", async () => {
    const asking = service("PASS");
    const model = { provider: "scripted", model: "m", generate: async () => ({ text: "", toolCalls: [], stopReason: "end" as const, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } }) };
    await judge(asking, { label: "tone", model, mock: "judge.yaml", llm: { provider: "openai" } });
    expect(asking.asked[0]).toMatchObject({ label: "tone", model, mock: "judge.yaml", llm: { provider: "openai" } });
    await judge(asking, {});
    expect(Object.keys(asking.asked[1] ?? {}).sort()).toEqual(["label", "prompt", "system"]);
  });

  it("uses passAt (default 0.5) when the judge gives a score without a verdict", async () => {
    expect((await judge(service('{"score": 0.6}'), {})).pass).toBe(true);
    expect((await judge(service('{"score": 0.6}'), { passAt: 0.7 })).pass).toBe(false);
    expect(await judge(service("FAIL: no"), {})).toEqual({ value: 0, pass: false, reason: "judge: no", details: { judgeRunId: "run_judge" } });
  });

  it("fails when the judge run failed, with its error", async () => {
    expect(await judge(service("", "failed", { code: "script_exhausted", message: "no answer" }), {})).toEqual({
      value: 0,
      pass: false,
      reason: "the judge run run_judge failed: script_exhausted: no answer",
      details: { judgeRunId: "run_judge" },
    });
    expect((await judge(service("", "failed"), {})).reason).toBe("the judge run run_judge failed: unknown error");
  });

  it("fails without a judge service, and refuses a missing or blank rubric", async () => {
    expect(await judge(undefined, {})).toEqual({ value: 0, pass: false, reason: "llm-judge needs a judge service: use it through t.judge(...) in an eval case" });
    for (const rubric of [undefined, "", "   ", 5]) {
      await expect(judge(service("PASS"), { rubric })).rejects.toThrow(new TypeError("llm-judge needs a rubric"));
    }
  });

  it("reads the run it was given", () => {
    expect(viewRun(twoTurns).turns.map((turn) => turn.input)).toEqual(["What is 2+2?", "And 3+3?"]);
  });
});
