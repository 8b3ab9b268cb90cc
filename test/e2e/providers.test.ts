/**
 * End to end: the quickstart agent (examples/hello/agent.yaml) runs through the real CLI entry
 * against simulated OpenAI, Anthropic and OpenAI-compatible APIs (msw, no network, fake keys),
 * streaming and not; retries honour retry-after through the agent loop on an injected clock;
 * a missing key stops the run before any request; an unhandled request fails the run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { http, HttpResponse } from "msw";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import type { RunEvent, Usage } from "../../src/contracts/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { splitsACharacter, useMockServer } from "../providers/support.js";
import { addedLines, captureIO, FAKE_KEYS, QUICKSTART, quickstartAs, retrace, storedRun, useTempDirs, type CliRun, type ProviderName, type StoredRun } from "./harness.js";
import { argumentFragments, cutInside, simulate, type SimulatedApi, type Turn, type WireProvider, type WireUsage } from "./simulated-api.js";

const server = useMockServer();
const tempDir = useTempDirs();

// A request no handler claims fails the test it happens in (useMockServer), unless the test
// declares it with server.expectUnhandled(): only the unhandled-request specs do.

const QUESTION = "What is 2 + 2?";
const ANSWER_DELTAS = ["2 + 2", " = 4 ", "✓"];
const ANSWER = ANSWER_DELTAS.join("");
const CALCULATOR_ARGS = { expression: "2 + 2" };
/** What the calculator returns for 2 + 2, as the model is told it (canonical JSON). */
const TOOL_RESULT = '{"expression":"2 + 2","result":4}';
/** Both keys are always in the environment: each provider must send only its own. */
const ENV = { ...FAKE_KEYS };
const ALL_KEYS = Object.values(FAKE_KEYS);

interface ProviderCase {
  provider: ProviderName;
  wire: WireProvider;
  /** Where the SDK must POST. */
  url: string;
  /** What the config needs besides llm.provider. */
  llm: Record<string, string>;
  /** The model the request must name. */
  model: string;
  /** The model the simulated API says answered (a dated snapshot, as the real APIs report). */
  servedModel: string;
  callId: string;
  /** The key the request must carry, and where; undefined when none of ours may be sent. */
  auth: { header: string; value: string } | undefined;
  usage: [WireUsage, WireUsage];
  /** The same counts, normalised (input includes cache reads and writes; cached is reads). */
  normalised: [Usage, Usage];
  priced: boolean;
}

const PROVIDERS: ProviderCase[] = [
  {
    provider: "openai",
    wire: "openai",
    url: "https://api.openai.com/v1/chat/completions",
    llm: {},
    model: "gpt-4o-mini",
    servedModel: "gpt-4o-mini-2024-07-18",
    callId: "call_e2eCalc0001",
    auth: { header: "authorization", value: `Bearer ${FAKE_KEYS.OPENAI_API_KEY}` },
    usage: [
      { input: 120, output: 18, cacheRead: 0 },
      { input: 160, output: 12, cacheRead: 128 },
    ],
    normalised: [
      { inputTokens: 120, outputTokens: 18, cachedInputTokens: 0 },
      { inputTokens: 160, outputTokens: 12, cachedInputTokens: 128 },
    ],
    priced: true,
  },
  {
    provider: "anthropic",
    wire: "anthropic",
    url: "https://api.anthropic.com/v1/messages",
    llm: {},
    model: "claude-haiku-4-5",
    servedModel: "claude-haiku-4-5-20251001",
    callId: "toolu_01E2eCalc0001",
    // @anthropic-ai/sdk 1.x sends an apiKey as a bearer token (not x-api-key).
    auth: { header: "authorization", value: `Bearer ${FAKE_KEYS.ANTHROPIC_API_KEY}` },
    usage: [
      { input: 150, output: 30, cacheRead: 0, cacheWrite: 40 },
      { input: 20, output: 14, cacheRead: 150, cacheWrite: 0 },
    ],
    normalised: [
      { inputTokens: 190, outputTokens: 30, cachedInputTokens: 0 },
      { inputTokens: 170, outputTokens: 14, cachedInputTokens: 150 },
    ],
    priced: true,
  },
  {
    provider: "openai-compatible",
    wire: "openai",
    url: "http://localhost:11434/v1/chat/completions",
    llm: { base_url: "http://localhost:11434/v1", model: "llama3.2" },
    model: "llama3.2",
    servedModel: "llama3.2",
    callId: "call_e2eCalc0001",
    // A local server needs no key, and must never be handed the OpenAI one.
    auth: undefined,
    usage: [
      { input: 90, output: 20, cacheRead: 0 },
      { input: 130, output: 9, cacheRead: 0 },
    ],
    normalised: [
      { inputTokens: 90, outputTokens: 20, cachedInputTokens: 0 },
      { inputTokens: 130, outputTokens: 9, cachedInputTokens: 0 },
    ],
    priced: false,
  },
];

function quickstartTurns(spec: ProviderCase): Turn[] {
  return [
    { kind: "tool_call", id: spec.callId, name: "calculator", args: CALCULATOR_ARGS, usage: spec.usage[0] },
    { kind: "text", deltas: ANSWER_DELTAS, usage: spec.usage[1] },
  ];
}

type Stored = StoredRun["events"][number];
const ofType = (events: readonly Stored[], type: string) => events.filter((event) => event.type === type);

const MATRIX = PROVIDERS.flatMap((spec) => [false, true].map((stream) => ({ ...spec, stream, mode: stream ? "streaming" : "non-streaming" })));

describe.each(MATRIX)("the quickstart agent on $provider ($mode), through `retrace run`", (spec) => {
  let api: SimulatedApi;
  let run: CliRun;
  let stored: StoredRun;
  let configText: string;

  beforeAll(async () => {
    const dir = tempDir();
    const { configPath, text } = quickstartAs(dir, spec.provider, spec.llm);
    configText = text;
    api = simulate(server, spec.wire, { url: spec.url, turns: quickstartTurns(spec), model: spec.servedModel });
    const db = join(dir, "runs.db");
    run = await retrace(["run", configPath, "-m", QUESTION, "--db", db, ...(spec.stream ? ["--stream"] : [])], captureIO(ENV, dir));
    stored = storedRun(db);
  });

  it("changes nothing in the quickstart config but what the README says", () => {
    const changed = addedLines(readFileSync(QUICKSTART, "utf8"), configText);
    if (spec.provider === "openai") expect(changed).toEqual([]);
    else if (spec.provider === "anthropic") expect(changed).toEqual(["  provider: anthropic"]);
    else expect(changed).toEqual(["  provider: openai-compatible", "  base_url: http://localhost:11434/v1", "  model: llama3.2"]);
  });

  it("completes (exit 0) and prints the answer", () => {
    expect(run.io.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.io.out).toBe(`${ANSWER}\n`);
  });

  it("made exactly two requests, in the mode asked for, with the key only where it belongs", () => {
    expect(api.requests).toHaveLength(2);
    for (const request of api.requests) {
      expect(request.method).toBe("POST");
      expect(request.url).toBe(spec.url);
      expect(request.body["model"]).toBe(spec.model);
      if (spec.stream) expect(request.body["stream"]).toBe(true);
      else expect(request.body["stream"]).toBeUndefined();
      if (spec.stream && spec.wire === "openai") expect(request.body["stream_options"]).toEqual({ include_usage: true });
      if (spec.auth) expect(request.headers[spec.auth.header]).toBe(spec.auth.value);
      // No other key of ours in any header: Anthropic never gets the OpenAI key, a local server gets neither.
      const otherKeys = ALL_KEYS.filter((key) => key !== spec.auth?.value.replace(/^Bearer /, ""));
      for (const key of otherKeys) expect(JSON.stringify(request.headers)).not.toContain(key);
    }
  });

  it("offered the calculator and the system prompt in the first request", () => {
    const first = api.requests[0]!.body;
    const tools = first["tools"] as { name?: string; function?: { name: string } }[];
    expect(tools.map((tool) => tool.name ?? tool.function?.name)).toEqual(["calculator"]);
    if (spec.wire === "openai") {
      expect(first["messages"]).toEqual([
        { role: "system", content: expect.stringContaining("Use the calculator tool") },
        { role: "user", content: QUESTION },
      ]);
    } else {
      expect(first["system"]).toEqual(expect.stringContaining("Use the calculator tool"));
      expect(first["messages"]).toEqual([{ role: "user", content: QUESTION }]);
    }
  });

  it("sent the tool result for the call id in the second request", () => {
    const messages = api.requests[1]!.body["messages"] as Record<string, unknown>[];
    if (spec.wire === "openai") {
      expect(messages.slice(1)).toEqual([
        { role: "user", content: QUESTION },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: spec.callId, type: "function", function: { name: "calculator", arguments: expect.any(String) } }],
        },
        { role: "tool", tool_call_id: spec.callId, content: TOOL_RESULT },
      ]);
      const assistant = messages[2] as { tool_calls: { function: { arguments: string } }[] };
      expect(JSON.parse(assistant.tool_calls[0]!.function.arguments)).toEqual(CALCULATOR_ARGS);
    } else {
      expect(messages).toEqual([
        { role: "user", content: QUESTION },
        { role: "assistant", content: [{ type: "tool_use", id: spec.callId, name: "calculator", input: CALCULATOR_ARGS }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: spec.callId, content: TOOL_RESULT }] },
      ]);
    }
  });

  it("logged the tool loop: the call, its result and the answer", () => {
    const types = stored.events.map((event) => event.type);
    expect(types).toEqual([
      "run.started",
      "message",
      "llm.started",
      "llm.finished",
      "tool.requested",
      "tool.started",
      "tool.finished",
      "llm.started",
      "llm.finished",
      "run.finished",
    ]);
    expect(ofType(stored.events, "tool.requested")[0]).toMatchObject({ callId: spec.callId, name: "calculator", args: CALCULATOR_ARGS });
    expect(ofType(stored.events, "tool.finished")[0]).toMatchObject({ callId: spec.callId, result: { expression: "2 + 2", result: 4 } });
    expect(ofType(stored.events, "run.finished")[0]).toMatchObject({ status: "completed", output: ANSWER, steps: 2 });
    expect(ofType(stored.events, "run.started")[0]).toMatchObject({ model: { provider: spec.provider, model: spec.model } });
  });

  it("stored the normalised usage on each llm.finished, and the run's totals", () => {
    const finished = ofType(stored.events, "llm.finished") as unknown as { response: { usage: Usage; model?: string }; cost: number | null }[];
    expect(finished.map((event) => event.response.usage)).toEqual(spec.normalised);
    expect(finished.map((event) => event.response.model)).toEqual([spec.servedModel, spec.servedModel]);
    for (const event of finished) {
      if (spec.priced) expect(event.cost).toBeGreaterThan(0);
      else expect(event.cost).toBeNull(); // an unpriced local model costs "unknown", never 0
    }
    const [a, b] = spec.normalised;
    expect(ofType(stored.events, "run.finished")[0]).toMatchObject({
      usage: {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
      },
    });
  });

  it("never stored or printed an API key", () => {
    const everything = [...stored.raw, run.io.out, run.io.err].join("\n");
    for (const key of ALL_KEYS) expect(everything).not.toContain(key);
    // The config recorded with the run is redacted, not absent.
    expect(ofType(stored.events, "run.started")[0]).toHaveProperty("config.llm.provider", spec.provider);
  });

  if (spec.stream) {
    it("`--stream` printed the answer as it arrived: one write per delta, then a newline", () => {
      // The tool-call step has no text, so every write before the newline is an answer delta.
      expect(run.io.stdoutWrites.length).toBeGreaterThan(2);
      expect(run.io.stdoutWrites).toEqual([...ANSWER_DELTAS, "\n"]);
      expect(run.io.stdoutWrites.slice(0, -1).join("")).toBe(ANSWER);
    });

    it("was streamed with hostile chunk boundaries (inside JSON strings and inside ✓)", () => {
      expect(api.streamedChunks).toHaveLength(2);
      const [toolBody, answerBody] = api.streamedBodies as [string, string];
      const [toolChunks, answerChunks] = api.streamedChunks as [Uint8Array[], Uint8Array[]];
      // Some argument fragment's JSON string is cut in two on the wire.
      expect(argumentFragments(CALCULATOR_ARGS).some((fragment) => cutInside(toolChunks, toolBody, JSON.stringify(fragment)))).toBe(true);
      expect(splitsACharacter(answerChunks)).toBe(true);
      expect(cutInside(answerChunks, answerBody, "✓")).toBe(true);
    });
  } else {
    it("printed the whole answer in one write", () => {
      expect(run.io.stdoutWrites).toEqual([`${ANSWER}\n`]);
    });
  }
});

describe("a key given in the config as api_key: ${VAR}", () => {
  const COMPATIBLE_KEY = "gsk-e2e-compatible-FAKE-4b8e2a6c1d3f";
  it.each([
    { provider: "openai" as const, api_key: "${OPENAI_API_KEY}", key: FAKE_KEYS.OPENAI_API_KEY },
    { provider: "openai-compatible" as const, api_key: "${COMPATIBLE_API_KEY}", key: COMPATIBLE_KEY },
  ])("$provider: is sent as the bearer token, and redacted in the recorded config", async ({ provider, api_key, key }) => {
    const spec = PROVIDERS.find((candidate) => candidate.provider === provider)!;
    const dir = tempDir();
    const { configPath } = quickstartAs(dir, provider, { ...spec.llm, api_key });
    const api = simulate(server, spec.wire, { url: spec.url, turns: quickstartTurns(spec), model: spec.servedModel });
    const db = join(dir, "runs.db");
    const env = { ...ENV, COMPATIBLE_API_KEY: COMPATIBLE_KEY };
    const { code, io } = await retrace(["run", configPath, "-m", QUESTION, "--db", db], captureIO(env, dir));
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(api.requests.map((request) => request.headers["authorization"])).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
    const { raw, events } = storedRun(db);
    for (const secret of [...ALL_KEYS, COMPATIBLE_KEY]) expect([...raw, io.out, io.err].join("\n")).not.toContain(secret);
    expect(ofType(events, "run.started")[0]).toHaveProperty("config.llm.api_key", "[redacted]");
  });
});

// --- Retries through the agent loop, on an injected clock ------------------------------------

/**
 * The quickstart agent built in code, run once on a manual clock. The real timers it sets are
 * recorded (their delays, not how long anything took): a retry wait must be on the run clock
 * and never a real timer.
 */
async function runQuickstartInCode(spec: ProviderCase, turns: Turn[], options: { seed: number; stream?: boolean; llm?: Record<string, string> }) {
  const dir = tempDir();
  const { configPath } = quickstartAs(dir, spec.provider, { ...spec.llm, ...options.llm });
  const loaded = loadConfig(configPath, ENV);
  const agent = await buildAgent(loaded, { env: ENV, stream: options.stream ?? false });
  const api = simulate(server, spec.wire, { url: spec.url, turns, model: spec.servedModel });
  const clock = manualClock(Date.UTC(2026, 0, 1), 0);
  const context = createRunContext({ clock, seed: options.seed, ids: sequentialIds("run_e2e_") });
  const run = AgentRun.start(agent, { store: new MemoryRunStore(), context });
  const timers = vi.spyOn(globalThis, "setTimeout");
  let outcome;
  let realTimerDelays: (number | undefined)[];
  try {
    outcome = await run.send(QUESTION);
  } finally {
    realTimerDelays = timers.mock.calls.map((args) => args[1]);
    timers.mockRestore();
  }
  server.resetHandlers();
  return { api, clock, outcome, events: run.log.events, realTimerDelays };
}

type Attempt = { type: string; attempt?: number; retryInMs?: number | null; error?: Record<string, unknown>; at: string };
const llmAttempts = (events: readonly RunEvent[]) =>
  events.filter((event) => event.type.startsWith("llm.")).map((event) => event as unknown as Attempt);

describe.each(MATRIX)("retry-after through the agent loop on $provider ($mode), with an injected clock", (spec) => {
  it("honours `retry-after: 2` on a 429: waits 2000 ms on the run clock, none in real time", async () => {
    const [toolCall, answer] = quickstartTurns(spec) as [Turn, Turn];
    const rateLimited: Turn = { kind: "error", status: 429, headers: { "retry-after": "2" }, message: "Rate limit reached for requests" };
    const { api, clock, outcome, events, realTimerDelays } = await runQuickstartInCode(spec, [rateLimited, toolCall, answer], { seed: 1, stream: spec.stream });

    expect(outcome).toMatchObject({ status: "completed", output: ANSWER });
    expect(api.requests).toHaveLength(3);
    // The retry is the same request, sent again.
    expect(api.requests[1]!.body).toEqual(api.requests[0]!.body);
    expect(api.requests.map((request) => request.body["stream"] === true)).toEqual([spec.stream, spec.stream, spec.stream]);
    const attempts = llmAttempts(events);
    expect(attempts.map(({ type, attempt }) => `${type}#${attempt}`)).toEqual([
      "llm.started#1",
      "llm.failed#1",
      "llm.started#2",
      "llm.finished#2",
      "llm.started#1",
      "llm.finished#1",
    ]);
    expect(attempts[1]).toMatchObject({
      retryInMs: 2000,
      error: { kind: "rate_limited", code: "provider_rate_limited", status: 429, retryAfterMs: 2000, message: expect.stringContaining("Rate limit reached for requests") },
    });
    expect(clock.slept).toEqual([2000]);
    // The wait shows in the log's timestamps (run clock), not in the wall clock.
    expect(Date.parse(attempts[2]!.at) - Date.parse(attempts[1]!.at)).toBe(2000);
    expect(realTimerDelays).not.toContain(2000);
  });

});

describe.each(PROVIDERS.filter((spec) => spec.provider !== "openai-compatible"))("backoff without retry-after on $provider, with an injected clock", (spec) => {
  it("backs off a 503 without retry-after by seeded jitter: the same seed waits the same", async () => {
    const unavailable = (): Turn => ({ kind: "error", status: 503, message: "The server is temporarily unavailable" });
    const runs = [];
    for (const seed of [7, 7, 8]) {
      const [toolCall, answer] = quickstartTurns(spec) as [Turn, Turn];
      runs.push(await runQuickstartInCode(spec, [unavailable(), toolCall, answer], { seed }));
    }
    const delays = runs.map(({ events }) => llmAttempts(events).find((event) => event.type === "llm.failed")!.retryInMs);
    for (const { outcome, events, clock, realTimerDelays } of runs) {
      expect(outcome.status).toBe("completed");
      const failed = llmAttempts(events).filter((event) => event.type === "llm.failed");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ attempt: 1, error: { kind: "server", status: 503 } });
      expect(failed[0]!.error).not.toHaveProperty("retryAfterMs");
      // First retry: half to all of the 500 ms base.
      expect(failed[0]!.retryInMs).toBeGreaterThanOrEqual(250);
      expect(failed[0]!.retryInMs).toBeLessThanOrEqual(500);
      expect(clock.slept).toEqual([failed[0]!.retryInMs]);
      expect(realTimerDelays).not.toContain(failed[0]!.retryInMs);
    }
    expect(delays[0]).toBe(delays[1]);
    // And the jitter does come from the seed: another seed waits differently.
    expect(delays[2]).not.toBe(delays[0]);
  });

  it("gives up after max_retries (2), every attempt in the log, the last with no retry", async () => {
    const unavailable = (): Turn => ({ kind: "error", status: 500, message: "Internal server error" });
    const { api, clock, outcome, events } = await runQuickstartInCode(spec, [unavailable(), unavailable(), unavailable()], { seed: 3 });
    expect(api.requests).toHaveLength(3);
    expect(outcome).toMatchObject({ status: "failed", error: { code: "provider_server" } });
    const failed = llmAttempts(events).filter((event) => event.type === "llm.failed");
    expect(failed.map((event) => event.attempt)).toEqual([1, 2, 3]);
    expect(failed[2]!.retryInMs).toBeNull();
    expect(clock.slept).toEqual([failed[0]!.retryInMs, failed[1]!.retryInMs]);
  });
});

// --- A missing key ----------------------------------------------------------------------------

describe("a missing API key is reported before any request", () => {
  let requests: number;
  beforeEach(() => {
    requests = 0;
    server.use(
      http.all("*", () => {
        requests++;
        return HttpResponse.json({ error: { message: "no request was expected" } }, { status: 500 });
      }),
    );
  });

  it.each([
    { provider: "openai" as const, variable: "OPENAI_API_KEY", env: {} },
    { provider: "anthropic" as const, variable: "ANTHROPIC_API_KEY", env: {} },
    // The other provider's key is no substitute, and is not sent anywhere.
    { provider: "anthropic" as const, variable: "ANTHROPIC_API_KEY", env: { OPENAI_API_KEY: FAKE_KEYS.OPENAI_API_KEY } },
  ])("$provider without $variable (env: $env): exit 2, naming the variable, no request", async ({ provider, variable, env }) => {
    for (const stream of [false, true]) {
      const dir = tempDir();
      const { configPath } = quickstartAs(dir, provider);
      const db = join(dir, "runs.db");
      const { code, io } = await retrace(["run", configPath, "-m", QUESTION, "--db", db, ...(stream ? ["--stream"] : [])], captureIO(env, dir));
      expect(code).toBe(2);
      expect(io.err).toContain(`llm.api_key: no API key: environment variable ${variable} is not set`);
      expect(io.err).toContain(configPath);
      expect(io.out).toBe("");
      for (const key of ALL_KEYS) expect(io.err).not.toContain(key);
    }
    expect(requests).toBe(0);
  });

  it("names the variable the config asked for (api_key: ${MY_LLM_KEY})", async () => {
    const dir = tempDir();
    const { configPath } = quickstartAs(dir, "openai", { api_key: "${MY_LLM_KEY}" });
    // OPENAI_API_KEY is set, but the config chose another variable: no silent fallback.
    const { code, io } = await retrace(["run", configPath, "-m", QUESTION, "--db", join(dir, "runs.db")], captureIO(ENV, dir));
    expect(code).toBe(2);
    expect(io.err).toContain("environment variable MY_LLM_KEY is not set");
    expect(requests).toBe(0);
  });
});

// --- An unhandled request ---------------------------------------------------------------------

describe("a request no simulated API handles", () => {
  it("fails the run (exit 1) with a connection error, and the request is the one no handler claimed", async () => {
    const unhandled = server.expectUnhandled();
    const compatible = PROVIDERS.find((spec) => spec.provider === "openai-compatible")!;
    const handled = simulate(server, "openai", { url: compatible.url, turns: quickstartTurns(compatible), model: "llama3.2" });
    const dir = tempDir();
    // The path has no handler; max_retries 0 so that the CLI's real clock never sleeps.
    const { configPath } = quickstartAs(dir, "openai-compatible", { base_url: "http://localhost:11434/nowhere/v1", model: "llama3.2", max_retries: 0 });
    const db = join(dir, "runs.db");
    const { code, io } = await retrace(["run", configPath, "-m", QUESTION, "--db", db], captureIO(ENV, dir));

    expect(code).toBe(1);
    expect(io.out).toBe("");
    expect(io.err).toMatch(/^run \S+ failed: provider_connection: could not reach the OpenAI-compatible server at http:\/\/localhost:11434\/nowhere\/v1/);
    expect(unhandled).toEqual(["POST http://localhost:11434/nowhere/v1/chat/completions"]);
    expect(handled.requests).toHaveLength(0);

    const { events } = storedRun(db);
    expect(ofType(events, "llm.failed")).toEqual([
      expect.objectContaining({ attempt: 1, retryInMs: null, error: expect.objectContaining({ kind: "connection" }) }),
    ]);
    expect(ofType(events, "run.finished")[0]).toMatchObject({ status: "failed", error: { code: "provider_connection" } });
  });

  it("is retried like any connection failure (default max_retries), every attempt logged, on the run clock", async () => {
    const unhandled = server.expectUnhandled();
    const compatible = PROVIDERS.find((spec) => spec.provider === "openai-compatible")!;
    const { api, clock, outcome, events } = await runQuickstartInCode(compatible, quickstartTurns(compatible), {
      seed: 5,
      llm: { base_url: "http://localhost:11434/nowhere/v1" },
    });
    expect(api.requests).toHaveLength(0);
    expect(unhandled).toEqual(Array(3).fill("POST http://localhost:11434/nowhere/v1/chat/completions"));
    expect(outcome).toMatchObject({ status: "failed", error: { code: "provider_connection" } });
    const failed = llmAttempts(events).filter((event) => event.type === "llm.failed");
    expect(failed.map((event) => [event.attempt, event.error?.["kind"]])).toEqual([
      [1, "connection"],
      [2, "connection"],
      [3, "connection"],
    ]);
    expect(failed[2]!.retryInMs).toBeNull();
    expect(clock.slept).toEqual([failed[0]!.retryInMs, failed[1]!.retryInMs]);
  });
});
