import type { EventPayload } from "../contracts/index.js";
import { ConfigError } from "../errors/index.js";
import { REDACTION } from "../redaction/index.js";
import { compileLinear, unsafeRegexReason } from "../patterns/index.js";

export interface GuardrailSettings {
  input: { maxLength?: number; promptInjection: boolean; block: readonly string[] };
  /** Secrets are not a guardrail's business: the run log removes them from every event it records. */
  output: { block: readonly string[]; warn: readonly string[]; redact: readonly string[] };
}

export type GuardrailEvent = EventPayload<"guardrail">;

/** Phrases that try to override the system prompt or extract it. Case-insensitive, whitespace-tolerant. */
const PROMPT_INJECTION: readonly { rule: string; pattern: RegExp }[] = [
  { rule: "ignore_instructions", pattern: /\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier)\s+(instructions|prompts?|rules|directions)/i },
  { rule: "reveal_system_prompt", pattern: /\b(reveal|show|print|repeat|output|tell me)\s+(me\s+)?(your|the)\s+(system\s+prompt|hidden\s+instructions|initial\s+instructions)/i },
  { rule: "role_override", pattern: /\byou\s+are\s+now\s+(in\s+)?(developer|dan|jailbreak|unrestricted)\s*(mode)?/i },
  { rule: "new_instructions", pattern: /\b(new|updated)\s+system\s+(prompt|instructions)\s*:/i },
];

function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

interface Pattern {
  source: string;
  test(text: string): boolean;
  /** The first match's text, if any. */
  find(text: string): string | undefined;
  replaceAll(text: string, replacement: string): { text: string; count: number };
}

/**
 * A config's pattern, matched in linear time (see patterns/linear-regex), so that no pattern
 * can hang a run on a long answer. Lookarounds have no linear-time form: such a pattern runs on
 * the JavaScript engine, and is refused if it has a shape that can take exponential time.
 */
function pattern(source: string, where: string): Pattern {
  const linear = compileLinear(source, "iu");
  if (linear) return { source, test: linear.test, find: (text) => linear.exec(text)?.text, replaceAll: linear.replaceAll };
  const unsafe = unsafeRegexReason(source);
  if (unsafe) throw new ConfigError(`pattern ${JSON.stringify(source)} refused: ${unsafe}`, { path: where });
  const regex = new RegExp(source, "iu");
  const global = new RegExp(source, "giu");
  return {
    source,
    test: (text) => regex.test(text),
    find: (text) => regex.exec(text)?.[0],
    replaceAll: (text, replacement) => {
      let count = 0;
      const replaced = text.replace(global, () => {
        count++;
        return replacement;
      });
      return { text: count === 0 ? text : replaced, count };
    },
  };
}

function compile(patterns: readonly string[], where: string): Pattern[] {
  return patterns.map((source, index) => pattern(source, `${where}[${index}]`));
}

/**
 * Checks on what goes into the model and what comes out. Each firing is a `guardrail` event,
 * so evals can see it (`blocked()`, `warned()`) and replay reproduces it.
 */
export class Guardrails {
  readonly #settings: GuardrailSettings;
  readonly #inputBlock;
  readonly #outputBlock;
  readonly #outputWarn;
  readonly #outputRedact;

  constructor(settings: GuardrailSettings) {
    this.#settings = settings;
    this.#inputBlock = compile(settings.input.block, "guardrails.input.block");
    this.#outputBlock = compile(settings.output.block, "guardrails.output.block");
    this.#outputWarn = compile(settings.output.warn, "guardrails.output.warn");
    this.#outputRedact = compile(settings.output.redact, "guardrails.output.redact");
  }

  /** Firings for a user message; any `block` means the model must not be called. */
  checkInput(text: string): GuardrailEvent[] {
    const firings: GuardrailEvent[] = [];
    const block = (rule: string, detail: string) => firings.push({ type: "guardrail", direction: "input", action: "block", rule, detail });
    const { maxLength, promptInjection } = this.#settings.input;
    if (maxLength !== undefined && text.length > maxLength) block("max_length", `the message has ${text.length} characters; the limit is ${maxLength}`);
    if (promptInjection) {
      for (const { rule, pattern } of PROMPT_INJECTION) {
        const found = pattern.exec(text);
        if (found) block(`prompt_injection:${rule}`, `looks like a prompt injection: "${clip(found[0])}"`);
      }
    }
    for (const { source, find } of this.#inputBlock) {
      const found = find(text);
      if (found !== undefined) block(`input_pattern:${source}`, `matches a blocked pattern: "${clip(found)}"`);
    }
    return firings;
  }

  /** Firings for a final answer, and the answer with redactions applied. */
  checkOutput(text: string): { text: string; firings: GuardrailEvent[] } {
    const firings: GuardrailEvent[] = [];
    for (const { source, test } of this.#outputBlock) {
      if (test(text)) firings.push({ type: "guardrail", direction: "output", action: "block", rule: `output_pattern:${source}`, detail: "the answer matches a blocked pattern" });
    }
    for (const { source, find } of this.#outputWarn) {
      const found = find(text);
      if (found !== undefined) firings.push({ type: "guardrail", direction: "output", action: "warn", rule: `output_pattern:${source}`, detail: `the answer matches "${clip(found)}"` });
    }
    let redacted = text;
    const redactWith = (rule: string, pattern: Pattern) => {
      const { text: replaced, count } = pattern.replaceAll(redacted, REDACTION);
      redacted = replaced;
      if (count > 0) firings.push({ type: "guardrail", direction: "output", action: "redact", rule, detail: `${count} match(es) replaced with ${REDACTION}` });
    };
    for (const redact of this.#outputRedact) redactWith(`output_pattern:${redact.source}`, redact);
    return { text: redacted, firings };
  }

  /** A tool call's arguments are model output too: a blocked pattern there stops the call. */
  checkArguments(argsText: string): GuardrailEvent | undefined {
    for (const { source, test } of this.#outputBlock) {
      if (test(argsText)) {
        return { type: "guardrail", direction: "output", action: "block", rule: `output_pattern:${source}`, detail: "the call's arguments match a blocked pattern" };
      }
    }
    return undefined;
  }
}
