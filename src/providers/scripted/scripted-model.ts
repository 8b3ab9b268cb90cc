import { canonicalJson } from "../../canonical/index.js";
import { ProviderError, ScriptExhaustedError } from "../../errors/index.js";
import { loadYamlFile, validate } from "../../validation/index.js";
import type { GenerateOptions, LanguageModel, LlmRequest, LlmResponse, Message, ToolCall } from "../../contracts/index.js";
import { ScriptSchema, type Match, type ResponseEntry, type Script, type ScriptInput } from "../../contracts/index.js";

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
    this.script = checkedScripts.has(script) ? (script as Script) : validate(ScriptSchema, script, source);
    checkedScripts.add(this.script);
    this.source = source;
    this.model = this.script.model;
  }

  static fromFile(file: string): ScriptedModel {
    return new ScriptedModel(loadYamlFile(ScriptSchema, file, "mock script"), file);
  }

  /** Ordered responses no run reached. */
  get unusedResponses(): number {
    return Math.max(0, this.script.responses.length - this.#furthest);
  }

  get calls(): number {
    return this.#calls;
  }

  async generate(request: LlmRequest, options: GenerateOptions): Promise<LlmResponse> {
    this.#calls++;
    const entry = this.#pick(request, options);
    if (entry.error) {
      const kind = entry.error.kind ?? kindForStatus(entry.error.status);
      throw new ProviderError(kind, entry.error.message, {
        provider: this.provider,
        status: entry.error.status ?? STATUS_BY_KIND[kind],
        // Stryker disable next-line ConditionalExpression: equivalent, ProviderError stores an absent and an undefined retryAfterMs alike
        ...(entry.error.retry_after_ms !== undefined ? { retryAfterMs: entry.error.retry_after_ms } : {}),
      });
    }
    const response = toResponse(entry, request, options.callIndex);
    if (response.text) options.onTextDelta?.(response.text);
    return response;
  }

  #pick(request: LlmRequest, options: GenerateOptions): ResponseEntry {
    const position = this.#positionFor(request, options.callIndex - (options.attempt - 1));
    // Earlier attempts at this same request failed on the faults the script put there.
    for (let failed = 1; failed < options.attempt; failed++) this.#next(position, request);
    const entry = this.#next(position, request);
    if (!entry) {
      const last = request.messages[request.messages.length - 1];
      throw new ScriptExhaustedError(
        `script exhausted: model call #${options.callIndex + 1} has no scripted response ` +
          `(the script holds ${this.script.responses.length} response(s)` +
          (this.script.rules.length ? ` and ${this.script.rules.length} rule(s), none matching` : "") +
          `); the last message was ${describeMessage(last)}`,
        { ...(this.source ? { file: this.source } : {}) },
      );
    }
    this.#furthest = Math.max(this.#furthest, position.cursor);
    return entry;
  }

  /**
   * Replays the script over the conversation: each answer consumed an entry, after the faults
   * its failed attempts met. A turn with no answer (its retries ran out) consumed faults too;
   * how many is known only in total — the model calls the run made before this request
   * (`priorCalls`) — so such a turn takes the faults next in line, leaving one call for every
   * later answer.
   */
  #positionFor(request: LlmRequest, priorCalls: number): Position {
    // Stryker disable next-line ArrowFunction: equivalent, #next reads a missing use count as 0
    const position: Position = { cursor: 0, ruleUses: this.script.rules.map(() => 0), consumed: 0 };
    const { messages } = request;
    let answersLeft = messages.filter((message) => message.role === "assistant").length;
    messages.forEach((message, index) => {
      if (message.role === "assistant") {
        answersLeft--;
        const earlier = { ...request, messages: messages.slice(0, index) };
        for (let entry = this.#next(position, earlier); entry?.error; entry = this.#next(position, earlier));
      } else if (message.role === "user" && messages[index + 1]?.role === "user") {
        const earlier = { ...request, messages: messages.slice(0, index + 1) };
        while (position.consumed < priorCalls - answersLeft && this.#peek(position, earlier)?.error) this.#next(position, earlier);
      }
    });
    return position;
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
    // Stryker disable next-line ConditionalExpression: equivalent, past the end every later read is undefined too, and #furthest is set only on an answer
    if (entry) {
      position.cursor++;
      position.consumed++;
    }
    return entry;
  }
}

interface Position {
  cursor: number;
  ruleUses: number[];
  /** Entries taken so far, rules and responses alike: one per model call. */
  consumed: number;
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
