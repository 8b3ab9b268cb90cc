/**
 * Runs and reports for the page tests, built event by event so every kind of row is there:
 * turns, model calls (one retried), tool calls finished, failed, blocked and approved, a
 * guardrail, a retrieval, a child run, and an answer that tries to run a script.
 */
import { RunEventSchema, type LlmRequest, type Message, type RunEvent } from "../../src/contracts/index.js";
import { EvalReportSchema, type EvalReport } from "../../src/eval/report/schema.js";
import type { TimelineRunInput } from "../../src/report-html/index.js";

/** Text that would run if any page wrote it as markup. */
export const HOSTILE = `</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><!--`;
export const SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

type Payload = Record<string, unknown> & { type: RunEvent["type"] };

/** Events with envelope filled in and every one checked against the event schema. */
export function buildRun(runId: string, payloads: readonly Payload[], startMs = Date.UTC(2026, 0, 1)): RunEvent[] {
  return payloads.map((payload, index) => RunEventSchema.parse({ v: 1, runId, seq: index + 1, at: new Date(startMs + index * 7).toISOString(), ...payload }));
}

const TOOLS = [
  { name: "calculator", description: "Evaluates arithmetic.", parameters: { type: "object", properties: { expression: { type: "string" } } } },
  { name: "write_file", description: "Writes a file.", parameters: { type: "object" } },
  { name: "helper", description: "A sub-agent.", parameters: { type: "object" } },
];
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, cachedInputTokens: 0 });

function request(messages: Message[]): LlmRequest {
  return { model: "scripted", system: "You are careful. Never reveal the key.", messages, tools: TOOLS };
}

export function richRun(runId = "run_rich"): TimelineRunInput {
  const m1: Message[] = [{ role: "user", content: "What is 6 × 7?" }];
  const a1: Message = { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "calculator", arguments: '{"expression":"6*7"}' }] };
  const t1: Message = { role: "tool", toolCallId: "c1", name: "calculator", content: "42", isError: false };
  const m2 = [...m1, a1, t1];
  const a2: Message = { role: "assistant", content: "", toolCalls: [{ id: "c2", name: "write_file", arguments: "{}" }, { id: "c3", name: "helper", arguments: "{}" }, { id: "c4", name: "calculator", arguments: "{bad" }] };
  const m3: Message[] = [...m2, a2, { role: "tool", toolCallId: "c2", name: "write_file", content: "blocked", isError: true }];
  const m4: Message[] = [...m3, { role: "assistant", content: HOSTILE, toolCalls: [] }, { role: "user", content: "And now?" }];
  const events = buildRun(runId, [
    { type: "run.started", agent: { name: "calc", digest: "d1" }, model: { provider: "scripted", model: "scripted" }, seed: 1, config: { api_key: "[redacted]", temperature: 0 } },
    { type: "message", role: "user", content: "What is 6 × 7?" },
    { type: "llm.started", step: 1, attempt: 1, requestKey: "k1", request: request(m1) },
    { type: "llm.failed", step: 1, attempt: 1, requestKey: "k1", error: { code: "rate_limited", kind: "rate_limit", message: "slow down", status: 429 }, retryInMs: 10 },
    { type: "llm.started", step: 1, attempt: 2, requestKey: "k1", request: request(m1) },
    { type: "llm.finished", step: 1, attempt: 2, requestKey: "k1", response: { text: "", toolCalls: a1.toolCalls, stopReason: "tool_calls", usage: usage(30, 8) }, cost: 0.0001, durationMs: 120 },
    { type: "tool.requested", step: 1, callId: "c1", name: "calculator", args: { expression: "6*7" } },
    { type: "tool.started", callId: "c1", name: "calculator" },
    { type: "tool.finished", callId: "c1", name: "calculator", result: { result: 42 } },
    { type: "llm.started", step: 2, attempt: 1, requestKey: "k2", request: request(m2) },
    { type: "llm.finished", step: 2, attempt: 1, requestKey: "k2", response: { text: "", toolCalls: a2.toolCalls, stopReason: "tool_calls", usage: usage(60, 20) }, cost: 0.0002, durationMs: 340 },
    { type: "tool.requested", step: 2, callId: "c2", name: "write_file", args: { path: ".env" } },
    { type: "approval.requested", callId: "c2", tool: "write_file", argsHash: "h", roles: ["admin"] },
    { type: "approval.denied", callId: "c2", argsHash: "h", role: "admin", reason: "not on a Friday", by: "alice" },
    { type: "tool.blocked", callId: "c2", name: "write_file", reason: "approval_denied", detail: "denied by alice" },
    { type: "tool.requested", step: 2, callId: "c3", name: "helper", args: { task: "search" } },
    { type: "tool.started", callId: "c3", name: "helper" },
    { type: "retrieval", callId: "c3", tool: "search_docs", query: "request keys", chunks: [{ id: "docs/keys.md#1", source: "docs/keys.md", text: "A request key is a digest of the request.", score: 1.5, rank: 1 }] },
    { type: "tool.finished", callId: "c3", name: "helper", result: "found it" },
    { type: "tool.requested", step: 2, callId: "c4", name: "calculator", rawArgs: "{bad" },
    { type: "tool.failed", callId: "c4", name: "calculator", error: { kind: "invalid_arguments", message: "not JSON" } },
    { type: "llm.started", step: 3, attempt: 1, requestKey: "k3", request: request(m3) },
    { type: "llm.finished", step: 3, attempt: 1, requestKey: "k3", response: { text: HOSTILE, toolCalls: [], stopReason: "end", usage: usage(90, 30) }, cost: 0.0003, durationMs: 200 },
    { type: "guardrail", direction: "output", action: "warn", rule: "no-refunds", detail: `mentions refunds; key ${SECRET}` },
    { type: "run.finished", status: "completed", output: HOSTILE, usage: usage(180, 58), cost: 0.0006, steps: 3 },
    { type: "message", role: "user", content: "And now?" },
    { type: "retrieval", mode: "augment", turn: 2, query: "And now?", chunks: [{ id: "docs/next.md#2", source: "docs/next.md", title: "What next", headings: ["Guide", "Next steps"], text: "Then stop.", score: 0.8, rank: 1 }] },
    { type: "llm.started", step: 4, attempt: 1, requestKey: "k4", request: request(m4) },
    { type: "llm.finished", step: 4, attempt: 1, requestKey: "k4", response: { text: "Done.", toolCalls: [], stopReason: "end", usage: usage(120, 3) }, cost: 0.0001, durationMs: 90 },
    { type: "run.finished", status: "completed", output: "Done.", usage: usage(300, 61), cost: 0.0007, steps: 4 },
  ]);
  const child = buildRun(`${runId}.c3`, [
    { type: "run.started", agent: { name: "helper", digest: "d2" }, model: { provider: "scripted", model: "scripted" }, seed: 1, config: {}, parent: { runId, callId: "c3" } },
    { type: "message", role: "user", content: "search" },
    { type: "llm.started", step: 1, attempt: 1, requestKey: "kc", request: { model: "scripted", messages: [{ role: "user", content: "search" }], tools: [] } },
    { type: "llm.finished", step: 1, attempt: 1, requestKey: "kc", response: { text: "found it", toolCalls: [], stopReason: "end", usage: usage(5, 2) }, cost: null, durationMs: 10 },
    { type: "run.finished", status: "completed", output: "found it", usage: usage(5, 2), cost: null, steps: 1 },
  ]);
  return { events, children: [{ events: child }] };
}

/**
 * A long run: `steps` model calls, each followed by one tool call (five events a step, plus the
 * run's own, and one failed attempt before the last step but one), the conversation growing by two messages a step and sent in a context window of
 * WINDOW messages: the first, then the latest.
 */
export const WINDOW = 20;

export function longRun(steps: number, runId = "run_long"): TimelineRunInput {
  const payloads: Payload[] = [
    { type: "run.started", agent: { name: "long", digest: "d" }, model: { provider: "scripted", model: "scripted" }, seed: 0, config: {} },
    { type: "message", role: "user", content: "Count, one step at a time. ".repeat(20) },
  ];
  const messages: Message[] = [{ role: "user", content: "Count, one step at a time. ".repeat(20) }];
  for (let step = 1; step <= steps; step++) {
    const callId = `call_${step}`;
    const call = { id: callId, name: "calculator", arguments: JSON.stringify({ expression: `${step}+1` }) };
    const sent = request(messages.length > WINDOW ? [messages[0] as Message, ...messages.slice(-WINDOW + 1)] : [...messages]);
    // One failed attempt near the end, retried with the same request, for the problems list to find.
    const attempt = step === steps - 1 ? 2 : 1;
    if (attempt === 2) {
      payloads.push({ type: "llm.started", step, attempt: 1, requestKey: `key_${step}`, request: sent });
      payloads.push({ type: "llm.failed", step, attempt: 1, requestKey: `key_${step}`, error: { code: "server", kind: "server_error", message: "overloaded" }, retryInMs: 100 });
    }
    payloads.push({ type: "llm.started", step, attempt, requestKey: `key_${step}`, request: sent });
    payloads.push({ type: "llm.finished", step, attempt, requestKey: `key_${step}`, response: { text: `Step ${step}: thinking about it.`, toolCalls: [call], stopReason: "tool_calls", usage: usage(100 + step * 3, 12) }, cost: 0.00001, durationMs: 50 + (step % 17) * 9 });
    payloads.push({ type: "tool.requested", step, callId, name: "calculator", args: { expression: `${step}+1` } });
    payloads.push({ type: "tool.started", callId, name: "calculator" });
    payloads.push({ type: "tool.finished", callId, name: "calculator", result: { result: step + 1, note: "x".repeat(step % 5 === 0 ? 3000 : 20) } });
    messages.push({ role: "assistant", content: `Step ${step}: thinking about it.`, toolCalls: [call] }, { role: "tool", toolCallId: callId, name: "calculator", content: String(step + 1), isError: false });
  }
  return { events: buildRun(runId, payloads) };
}

const assertion = (status: "passed" | "failed" | "skipped", label: string, reason: string, value: number | null) => ({
  assertion: "check",
  label,
  scorer: "equals",
  severity: "gate" as const,
  status,
  value,
  reason,
});

function caseResult(file: string, name: string, tags: string[], status: "passed" | "failed" | "error", runId: string, extra: { reason?: string; output?: string; errors?: string[] } = {}) {
  const passed = status === "passed";
  return {
    id: `${file} > ${name}`,
    file,
    name,
    tags,
    status,
    score: status === "error" ? null : passed ? 1 : 0.5,
    threshold: 0,
    passRate: passed ? 1 : 0,
    flaky: false,
    attempts: [
      {
        attempt: 1,
        runId,
        status,
        score: status === "error" ? null : passed ? 1 : 0.5,
        durationMs: 120,
        assertions: status === "error" ? [] : [assertion("passed", "answers", "said 42", 1), assertion(passed ? "passed" : "failed", "calls the calculator", extra.reason ?? "called it", passed ? 1 : 0)],
        errors: extra.errors ?? [],
        notes: passed ? [] : ["1 scripted response was never used"],
        run: { status: "completed", turns: 1, steps: 2, toolCalls: 1, usage: usage(10, 5), cost: null, output: extra.output ?? "42" },
        judgeRuns: [],
      },
    ],
  };
}

export function sampleReport(runId = "run_rich"): EvalReport {
  const cases = [
    caseResult("eval/math.eval.ts", "adds", ["smoke", "math"], "passed", runId),
    caseResult("eval/math.eval.ts", "multiplies", ["math"], "failed", "run_b", { reason: `expected a call to calculator; the answer was ${HOSTILE}`, output: HOSTILE }),
    caseResult("eval/tools.eval.ts", "refuses .env", ["governance"], "failed", "run_c", { reason: "wrote .env", errors: [`provider said: invalid key ${SECRET}`] }),
    caseResult("eval/tools.eval.ts", "loads its mocks", ["governance"], "error", "run_d", { errors: ["mock file not found: mocks/x.yaml"] }),
    caseResult("eval/chat.eval.ts", "greets", ["smoke"], "passed", "run_e"),
  ];
  return EvalReportSchema.parse({
    format: "retrace-eval-report",
    version: 1,
    retrace: "0.1.0",
    mode: "mock",
    options: { repeat: 1, threshold: 0, tags: [], pattern: null, timeoutMs: 30000, bail: 0, shard: null },
    summary: { cases: 5, passed: 2, failed: 2, errors: 1, skipped: 0, flaky: 0, fileErrors: 0, score: 0.75, scoredCases: 4, durationMs: 1234, exitCode: 1 },
    errors: [],
    files: [
      { file: "eval/chat.eval.ts", cases: 1 },
      { file: "eval/math.eval.ts", cases: 2 },
      { file: "eval/tools.eval.ts", cases: 2 },
    ],
    cases,
    runStore: "runs.db",
  });
}
