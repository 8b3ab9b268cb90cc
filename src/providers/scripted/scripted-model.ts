import { canonicalJson } from "../../canonical/index.js";
import { ProviderError, ScriptExhaustedError } from "../../errors/index.js";
import { loadYamlFile, validate } from "../../validation/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse, Message, ToolCall } from "../../contracts/index.js";
import { ScriptSchema, type Match, type ResponseEntry, type Script, type ScriptInput } from "../../contracts/index.js";
import { plainScript } from "./plain-script.js";

const checkedScripts = new WeakSet<object>();

const STATUS_BY_KIND: Record<string, number> = { auth: 401, not_found: 404, bad_request: 400, rate_limited: 429, server: 500 };

/**
 * A model that answers from a script, for tests and `--mock`. It never pretends: a call the
 * script has no answer for throws ScriptExhaustedError, and unused entries can be listed.
 *
 * Where the script stands is derived from the request, not kept in memory: the answers already
 * in the conversation are matched against the script again, in order. So a resumed run (with a
 * freshly built model) continues where it stopped, and runs that share one model — sub-agents,
 * eval cases — never take each other's answers.
 */
export class ScriptedModel implements LanguageModel {
  readonly provider = "scripted";
  readonly model: string;
  readonly script: Script;
  readonly source: string | undefined;
  #furthest = 0;
  #calls = 0;

  constructor(script: ScriptInput | Script, source?: string) {
    // A script already checked (one file shared by many eval cases) is not parsed again.
    this.script = checkedScripts.has(script) ? (script as Script) : (plainScript(script) ?? validate(ScriptSchema, script, source));
    checkedScripts.add(this.script);
    this.source = source;
    this.model = this.script.model;
  }

  static fromFile(file: string): ScriptedModel {
    return new ScriptedModel(loadYamlFile(ScriptSchema, file, "mock script"), file);
  }

  /** How many ordered responses no run reached (see `unused()` for which). */
  get unusedResponses(): number {
    return Math.max(0, this.script.responses.length - this.#furthest);
  }

  /** Whether the script says its spare responses are on purpose (`allow_unused: true`). */
  get allowsUnused(): boolean {
    return this.script.allow_unused;
  }

  /**
   * The ordered responses no run of this model reached, in order, each with its index in
   * `responses` and a short preview. Responses are taken in order, so these are the tail.
   */
  unused(): UnusedResponse[] {
    return this.script.responses.slice(this.#furthest).map((entry, offset) => ({ index: this.#furthest + offset, preview: previewEntry(entry) }));
  }

  /**
   * The failure to report when responses were left unused and the script does not allow it;
   * undefined when every response was used or `allow_unused` is set.
   */
  unusedProblem(): string | undefined {
    const unused = this.unused();
    if (unused.length === 0 || this.allowsUnused) return undefined;
    const shown = unused.slice(0, 3).map((item) => `#${item.index + 1} ${item.preview}`);
    if (unused.length > shown.length) shown.push(`and ${unused.length - shown.length} more`);
    return (
      `the mock script${this.source ? ` ${this.source}` : ""} has ${unused.length} unused response(s): ${shown.join("; ")}; ` +
      `the agent stopped before the script expected (set allow_unused: true in the script if they are spare on purpose)`
    );
  }

  get calls(): number {
    return this.#calls;
  }

  async generate(request: LlmRequest, options: GenerateOptions): Promise<LlmResponse> {
    this.#calls++;
    const entry = this.#pick(request, options);
    if (entry.error) throw this.#fault(entry.error);
    const response = toResponse(entry, request, options.callIndex);
    if (response.text) options.onTextDelta?.(response.text);
    return response;
  }

  #pick(request: LlmRequest, options: GenerateOptions): ResponseEntry {
    // Every model call of this run took one entry, so `callIndex` entries are gone; the
    // conversation says which of them were rules (and in what context) and which responses.
    // Interrupted attempts took no entry: the next attempt is served what they would have got.
    const failedBefore = options.attempt - 1 - (options.interrupted ?? 0);
    const position = this.#positionFor(request, Math.max(0, options.callIndex - failedBefore));
    // Earlier attempts at this same request failed on the entries the script put there.
    while (position.consumed < options.callIndex && this.#next(position, request));
    const entry = this.#next(position, request);
    if (!entry) {
      const last = request.messages[request.messages.length - 1];
      const holds =
        this.script.responses.length === 0 && this.script.rules.length === 0
          ? "the script is empty (responses: []), which says the model must not be called"
          : `the script holds ${this.script.responses.length} response(s)` +
            (this.script.rules.length ? ` and ${this.script.rules.length} rule(s), none matching` : "");
      throw new ScriptExhaustedError(
        `script exhausted: model call #${options.callIndex + 1} has no scripted response (${holds}); ` +
          `the last message was ${describeMessage(last)}`,
        { ...(this.source ? { file: this.source } : {}) },
      );
    }
    this.#furthest = Math.max(this.#furthest, position.cursor);
    return entry;
  }

  /**
   * Replays the script over the conversation, given that the run made `priorCalls` model calls
   * before this request and each took one entry. The model was called after every user message
   * and after every tool step. Where an answer followed, the call took its entry after the
   * faults its failed attempts met. Where none followed — the turn ended on faults, after a
   * tool step or not — the calls took only faults; how many is known only in total, so such a
   * place takes the faults next in line while calls remain unaccounted for, leaving one call
   * for every later answer. It stops at a fault the agent does not retry, and at a call that
   * found nothing to answer with (it took no entry): either ended the turn. Whatever the
   * conversation does not account for (a call whose answer was never stored) is taken last,
   * so the place never falls behind the call count.
   *
   * Exact for ordered responses (the cursor oracle in test/scripted checks it). A rule that can
   * answer with a fault in several places, or a turn ended by max_steps right after a tool step
   * where a rule would match, leaves the split ambiguous: the request does not say how many
   * calls each failed turn made.
   */
  #positionFor(request: LlmRequest, priorCalls: number): Position {
    // Stryker disable next-line ArrowFunction: equivalent, #next reads a missing use count as 0
    const position: Position = { cursor: 0, ruleUses: this.script.rules.map(() => 0), consumed: 0 };
    const { messages } = request;
    let answersLeft = messages.filter((message) => message.role === "assistant").length;
    const takeFaults = (context: LlmRequest, reserved: number) => {
      while (position.consumed < priorCalls - reserved) {
        const entry = this.#peek(position, context);
        // A call here found nothing to answer with: it failed, took nothing, and ended the turn.
        if (entry === undefined) return void position.consumed++;
        if (!entry.error) return;
        this.#next(position, context);
        // The agent does not retry this fault: the turn ended on it.
        if (!this.#fault(entry.error).retryable) return;
      }
    };
    messages.forEach((message, index) => {
      if (message.role === "assistant") {
        const earlier = { ...request, messages: messages.slice(0, index) };
        takeFaults(earlier, answersLeft);
        answersLeft--;
        if (position.consumed < priorCalls) this.#next(position, earlier);
      } else if (calledAfter(messages, index) && messages[index + 1]?.role === "user") {
        takeFaults({ ...request, messages: messages.slice(0, index + 1) }, answersLeft);
      }
    });
    while (position.consumed < priorCalls && this.#next(position, request));
    return position;
  }

  #fault(error: NonNullable<ResponseEntry["error"]>): ProviderError {
    const kind = error.kind ?? kindForStatus(error.status);
    return new ProviderError(kind, error.message, {
      provider: this.provider,
      status: error.status ?? STATUS_BY_KIND[kind],
      // Stryker disable next-line ConditionalExpression: equivalent, ProviderError stores an absent and an undefined retryAfterMs alike
      ...(error.retry_after_ms !== undefined ? { retryAfterMs: error.retry_after_ms } : {}),
    });
  }

  #peek(position: Position, request: LlmRequest): ResponseEntry | undefined {
    return this.#next({ cursor: position.cursor, ruleUses: [...position.ruleUses], consumed: position.consumed }, request);
  }

  #next(position: Position, request: LlmRequest): ResponseEntry | undefined {
    for (const [index, rule] of this.script.rules.entries()) {
      const uses = position.ruleUses[index] ?? 0;
      if (uses >= (rule.times ?? Number.POSITIVE_INFINITY)) continue;
      if (!matches(rule.when, request)) continue;
      position.ruleUses[index] = uses + 1;
      position.consumed++;
      return rule.respond;
    }
    const entry = this.script.responses[position.cursor];
    if (entry) {
      position.cursor++;
      position.consumed++;
    }
    return entry;
  }
}

export interface UnusedResponse {
  /** Its index in the script's `responses` (0-based). */
  index: number;
  /** A short description: its text, the tools it calls, or the fault it injects. */
  preview: string;
}

function previewEntry(entry: ResponseEntry): string {
  if (entry.error) return `error ${entry.error.kind ?? entry.error.status ?? "server"}`;
  const parts: string[] = [];
  if (entry.text !== undefined) parts.push(`text ${JSON.stringify(entry.text.length > 40 ? `${entry.text.slice(0, 37)}...` : entry.text)}`);
  if (entry.tool_calls?.length) parts.push(`calls ${entry.tool_calls.map((call) => call.name).join(", ")}`);
  return parts.join(", ");
}

interface Position {
  cursor: number;
  ruleUses: number[];
  /** Entries taken so far, rules and responses alike: one per model call. */
  consumed: number;
}

/** Whether the model is asked to go on after this message: after a user message, and after a tool step's last result. */
function calledAfter(messages: readonly Message[], index: number): boolean {
  const message = messages[index];
  if (message?.role === "user") return true;
  return message?.role === "tool" && messages[index + 1]?.role !== "tool";
}

function kindForStatus(status: number | undefined): ProviderError["kind"] {
  if (status === undefined) return "server";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "bad_request";
}

function describeMessage(message: Message | undefined): string {
  if (!message) return "(none)";
  const text = message.content.length > 80 ? `${message.content.slice(0, 77)}...` : message.content;
  return `${message.role}: ${JSON.stringify(text)}`;
}

function lastOf<T extends Message["role"]>(messages: readonly Message[], role: T): Extract<Message, { role: T }> | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === role) return message as Extract<Message, { role: T }>;
  }
  return undefined;
}

function contains(text: string | undefined, needle: string): boolean {
  return text !== undefined && text.toLowerCase().includes(needle.toLowerCase());
}

function matches(when: Match, request: LlmRequest): boolean {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  if (when.user_contains !== undefined && !contains(lastOf(messages, "user")?.content, when.user_contains)) return false;
  if (when.last_message_contains !== undefined && !contains(last?.content, when.last_message_contains)) return false;
  if (when.tool_result_contains !== undefined && !contains(lastOf(messages, "tool")?.content, when.tool_result_contains)) return false;
  if (when.after_tool !== undefined && !(last?.role === "tool" && last.name === when.after_tool)) return false;
  if (when.system_contains !== undefined && !contains(request.system, when.system_contains)) return false;
  if (when.step !== undefined && messages.filter((m) => m.role === "assistant").length + 1 !== when.step) return false;
  return true;
}

/** Deterministic token estimate (≈4 characters a token) so budgets have something real to count. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function toResponse(entry: ResponseEntry, request: LlmRequest, callIndex: number): LlmResponse {
  const toolCalls: ToolCall[] = (entry.tool_calls ?? []).map((call, index) => ({
    // Derived from the call index, which is unique within a run, so ids never collide.
    id: call.id ?? `call_${callIndex + 1}_${index + 1}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : canonicalJson(call.arguments),
  }));
  const text = entry.text ?? "";
  const usage = entry.usage
    ? { inputTokens: entry.usage.input_tokens, outputTokens: entry.usage.output_tokens, cachedInputTokens: entry.usage.cached_input_tokens }
    : {
        inputTokens: estimateTokens((request.system ?? "") + request.messages.map((m) => m.content).join("")),
        outputTokens: estimateTokens(text + toolCalls.map((call) => call.name + call.arguments).join("")),
        cachedInputTokens: 0,
      };
  return {
    model: "scripted",
    text,
    toolCalls,
    stopReason: entry.stop_reason ?? (toolCalls.length > 0 ? "tool_calls" : "end"),
    usage,
  };
}
