import type { EventPayload } from "../contracts/index.js";
import { ConfigError } from "../errors/index.js";
import { REDACTION } from "../redaction/index.js";
import { unsafeRegexReason } from "../patterns/index.js";

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

/** Patterns that could hang a run are refused here too, for guardrails built in code. */
function compile(patterns: readonly string[], where: string, flags = "iu"): { source: string; regex: RegExp }[] {
  return patterns.map((source, index) => {
    const unsafe = unsafeRegexReason(source);
    if (unsafe) throw new ConfigError(`pattern ${JSON.stringify(source)} refused: ${unsafe}`, { path: `${where}[${index}]` });
    return { source, regex: new RegExp(source, flags) };
  });
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
    this.#outputRedact = compile(settings.output.redact, "guardrails.output.redact", "giu");
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
    for (const { source, regex } of this.#inputBlock) {
      const found = regex.exec(text);
      if (found) block(`input_pattern:${source}`, `matches a blocked pattern: "${clip(found[0])}"`);
    }
    return firings;
  }

  /** Firings for a final answer, and the answer with redactions applied. */
  checkOutput(text: string): { text: string; firings: GuardrailEvent[] } {
    const firings: GuardrailEvent[] = [];
    for (const { source, regex } of this.#outputBlock) {
      if (regex.test(text)) firings.push({ type: "guardrail", direction: "output", action: "block", rule: `output_pattern:${source}`, detail: "the answer matches a blocked pattern" });
    }
    for (const { source, regex } of this.#outputWarn) {
      const found = regex.exec(text);
      if (found) firings.push({ type: "guardrail", direction: "output", action: "warn", rule: `output_pattern:${source}`, detail: `the answer matches "${clip(found[0])}"` });
    }
    let redacted = text;
    const redactWith = (rule: string, regex: RegExp) => {
      let count = 0;
      redacted = redacted.replace(regex, () => {
        count++;
        return REDACTION;
      });
      if (count > 0) firings.push({ type: "guardrail", direction: "output", action: "redact", rule, detail: `${count} match(es) replaced with ${REDACTION}` });
    };
    for (const { source, regex } of this.#outputRedact) redactWith(`output_pattern:${source}`, regex);
    return { text: redacted, firings };
  }

  /** A tool call's arguments are model output too: a blocked pattern there stops the call. */
  checkArguments(argsText: string): GuardrailEvent | undefined {
    for (const { source, regex } of this.#outputBlock) {
      if (regex.test(argsText)) {
        return { type: "guardrail", direction: "output", action: "block", rule: `output_pattern:${source}`, detail: "the call's arguments match a blocked pattern" };
      }
    }
    return undefined;
  }
}
