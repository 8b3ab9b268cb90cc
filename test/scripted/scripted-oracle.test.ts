import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { canonicalJson } from "../../src/canonical/index.js";
import { ProviderError, ScriptExhaustedError } from "../../src/errors/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse, ResponseEntry, RunEvent, ScriptInput } from "../../src/contracts/index.js";
import { scriptedAgent, testContext } from "../helpers.js";

/**
 * The oracle: a model that keeps its place in memory and hands out one entry per call, the way
 * a scripted provider is meant to behave. The scripted model must answer the same without
 * keeping any state, from the conversation and the run's call index alone.
 */
class CursorModel implements LanguageModel {
  readonly provider = "scripted";
  readonly model = "scripted";
  #cursor = 0;
  readonly #uses: number[];
  constructor(
    private readonly responses: readonly ResponseEntry[],
    private readonly rules: readonly OracleRule[] = [],
  ) {
    this.#uses = rules.map(() => 0);
  }

  async generate(request: LlmRequest, options: GenerateOptions): Promise<LlmResponse> {
    const rule = this.rules.findIndex((candidate, index) => (candidate.times === undefined || (this.#uses[index] ?? 0) < candidate.times) && holds(candidate.when, request));
    if (rule >= 0) this.#uses[rule] = (this.#uses[rule] ?? 0) + 1;
    const entry = rule >= 0 ? this.rules[rule]?.respond : this.responses[this.#cursor++];
    if (!entry) throw new ScriptExhaustedError("script exhausted");
    if (entry.error) throw new ProviderError(entry.error.kind ?? "server", entry.error.message ?? "injected provider fault", { provider: this.provider });
    const toolCalls = (entry.tool_calls ?? []).map((call, index) => ({
      id: `call_${options.callIndex + 1}_${index + 1}`,
      name: call.name,
      arguments: canonicalJson(call.arguments ?? {}),
    }));
    return { text: entry.text ?? "", toolCalls, stopReason: toolCalls.length ? "tool_calls" : "end", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } };
  }
}

interface OracleRule {
  when: { user_contains?: string; after_tool?: string };
  respond: ResponseEntry;
  times?: number;
}

/** The two conditions the rules below use, as the script format defines them. */
function holds(when: OracleRule["when"], request: LlmRequest): boolean {
  const messages = request.messages;
  const lastUser = [...messages].reverse().find((message) => message.role === "user");
  const last = messages.at(-1);
  if (when.user_contains !== undefined && !lastUser?.content.toLowerCase().includes(when.user_contains.toLowerCase())) return false;
  if (when.after_tool !== undefined && !(last?.role === "tool" && last.name === when.after_tool)) return false;
  return true;
}

/** What the run did, without what depends on the exact request (usage estimates, messages). */
function trail(events: readonly RunEvent[]): string[] {
  return events.flatMap((event) => {
    switch (event.type) {
      case "message":
        return [`user ${event.content}`];
      case "llm.finished":
        return [`answer ${JSON.stringify([event.response.text, event.response.toolCalls])}`];
      case "llm.failed":
        return [`fault ${event.error.code}`];
      case "tool.finished":
      case "tool.failed":
        return [`${event.type} ${event.callId}`];
      case "run.finished":
        return [`finished ${event.status} ${event.error?.code ?? ""}`];
      default:
        return [];
    }
  });
}

const toolCall: ResponseEntry = { tool_calls: [{ name: "echo", arguments: { text: "x" } }] };
const twoToolCalls: ResponseEntry = { tool_calls: [{ name: "echo", arguments: { text: "a" } }, { name: "echo", arguments: { text: "b" } }] };
const server: ResponseEntry = { error: { kind: "server", message: "down" } };
const badRequest: ResponseEntry = { error: { kind: "bad_request", message: "refused" } };

const entryArb: fc.Arbitrary<ResponseEntry> = fc.oneof(
  fc.integer({ min: 1, max: 99 }).map((n): ResponseEntry => ({ text: `answer ${n}` })),
  fc.constant(toolCall),
  fc.constant(twoToolCalls),
  fc.constant(server),
  fc.constant(badRequest),
);

const ruleArb: fc.Arbitrary<OracleRule> = fc.record(
  {
    when: fc.oneof(
      fc.integer({ min: 1, max: 3 }).map((turn) => ({ user_contains: `turn ${turn}` })),
      fc.constant({ after_tool: "echo" }),
      fc.integer({ min: 1, max: 3 }).map((turn) => ({ user_contains: `turn ${turn}`, after_tool: "echo" })),
    ),
    // Rules answer, they do not inject faults here: how many calls a turn that ended on faults
    // made is known to the model only in total, and a rule that can fault in several places
    // leaves that total ambiguous (see the model's #positionFor).
    respond: fc.oneof(
      fc.integer({ min: 1, max: 99 }).map((n): ResponseEntry => ({ text: `rule answer ${n}` })),
      fc.constant(toolCall),
    ),
    times: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: ["when", "respond"] },
);

async function runTurns(
  _script: readonly ResponseEntry[],
  turns: number,
  settings: { maxRetries: number; maxSteps: number },
  model: () => LanguageModel,
  freshModelEachTurn: boolean,
): Promise<string[]> {
  const store = new MemoryRunStore();
  const shared = model();
  let run = AgentRun.start(scriptedAgent({ responses: [{ text: "unused" }] }, { ...settings, model: shared }), { store, context: testContext(), runId: "r1" });
  for (let turn = 1; turn <= turns; turn++) {
    // A fresh model per turn is what a restarted process has: nothing but the log to go on.
    if (freshModelEachTurn && turn > 1) run = AgentRun.open(scriptedAgent({ responses: [{ text: "unused" }] }, { ...settings, model: model() }), "r1", { store, context: testContext() });
    await run.send(`turn ${turn}`);
  }
  return trail(store.read("r1"));
}

describe("ScriptedModel against a stateful cursor", () => {
  it("a turn that failed on faults after a tool step leaves the next turn the next answer (review defect B)", async () => {
    const script: ScriptInput = { responses: [toolCall, server, server, server, { text: "second turn answer" }] };
    const run = AgentRun.start(scriptedAgent(script, { maxRetries: 2 }), { store: new MemoryRunStore(), context: testContext() });
    const first = await run.send("one");
    expect(first).toMatchObject({ status: "failed", error: { code: "provider_server" } });
    expect(await run.send("two")).toMatchObject({ status: "completed", output: "second turn answer" });
  });

  it("the same after a restart: a fresh model finds its place from the log", async () => {
    const script: ScriptInput = { responses: [toolCall, server, server, server, { text: "second turn answer" }] };
    const store = new MemoryRunStore();
    const run = AgentRun.start(scriptedAgent(script, { maxRetries: 2 }), { store, context: testContext() });
    expect((await run.send("one")).status).toBe("failed");
    const reopened = AgentRun.open(scriptedAgent(script, { maxRetries: 2 }), run.runId, { store, context: testContext() });
    expect(await reopened.send("two")).toMatchObject({ status: "completed", output: "second turn answer" });
  });

  it("a turn without faults (user → user) still accounts for the earlier failed turn (control)", async () => {
    const script: ScriptInput = { responses: [server, server, server, { text: "second turn answer" }] };
    const run = AgentRun.start(scriptedAgent(script, { maxRetries: 2 }), { store: new MemoryRunStore(), context: testContext() });
    expect((await run.send("one")).status).toBe("failed");
    expect((await run.send("two")).output).toBe("second turn answer");
  });

  it("a turn that found the script exhausted took nothing: a rule for a later turn still answers it", async () => {
    const script: ScriptInput = { responses: [], rules: [{ when: { user_contains: "two" }, respond: { text: "rule answer" }, times: 1 }] };
    const run = AgentRun.start(scriptedAgent(script), { store: new MemoryRunStore(), context: testContext() });
    expect(await run.send("one")).toMatchObject({ status: "failed", error: { code: "script_exhausted" } });
    expect(await run.send("two")).toMatchObject({ status: "completed", output: "rule answer" });
  });

  it("a turn that ended on a fault the agent does not retry took one entry, even when a rule could fault again", async () => {
    const script: ScriptInput = {
      responses: [server, { text: "third turn answer" }],
      rules: [{ when: { user_contains: "one" }, respond: badRequest }],
    };
    const run = AgentRun.start(scriptedAgent(script, { maxRetries: 0 }), { store: new MemoryRunStore(), context: testContext() });
    expect(await run.send("one")).toMatchObject({ status: "failed", error: { code: "provider_bad_request" } });
    expect(await run.send("two")).toMatchObject({ status: "failed", error: { code: "provider_server" } });
    expect(await run.send("three")).toMatchObject({ status: "completed", output: "third turn answer" });
  });

  it("answers every call as the cursor does, over random scripts with faults, tool steps and several turns", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (responses, turns, maxRetries, maxSteps, fresh) => {
          const settings = { maxRetries, maxSteps };
          const expected = await runTurns(responses, turns, settings, () => new CursorModel(responses), false);
          const actual = await runTurns(responses, turns, settings, () => new ScriptedModel({ responses }), fresh);
          expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers as the cursor does when rules (conditions, times) answer first", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { minLength: 0, maxLength: 10 }),
        fc.array(ruleArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (responses, rules, turns, maxRetries, maxSteps, fresh) => {
          const settings = { maxRetries, maxSteps };
          const expected = await runTurns(responses, turns, settings, () => new CursorModel(responses, rules), false);
          const actual = await runTurns(responses, turns, settings, () => new ScriptedModel({ responses, rules }), fresh);
          expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
