import {
  BlockReasonSchema,
  RunStatusSchema,
  ToolErrorKindSchema,
  type RunEventType,
} from "../contracts/index.js";
import { createRedactor, type RedactionSettings } from "./redactor.js";

/**
 * The variables providers read their keys from. Their values are secrets wherever they show up
 * in a run, whether or not this agent's provider uses them: a tool may print the environment.
 */
export const PROVIDER_KEY_VARIABLES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;

/**
 * The event format's own words (types, statuses, roles, reasons). A string that is exactly one
 * of them is left alone, so that redaction never turns a valid event into an invalid one; such
 * a word is public, so no secret is kept by it.
 */
const EVENT_WORDS: ReadonlySet<string> = new Set([
  ...RunStatusSchema.options,
  ...ToolErrorKindSchema.options,
  ...BlockReasonSchema.options,
  "user",
  "input",
  "output",
  "block",
  "warn",
  // Stryker disable next-line StringLiteral: equivalent, "redact" is inside the marker, so it is never searched for, and no pattern matches it
  "redact",
  "approval",
  "child_waiting",
]);

type EventRedact = <P extends { type: RunEventType }>(payload: P) => P;

/**
 * Each settings object's redactor, with the content it was made for. Runs of one agent pass the
 * agent's own settings, so they share one redactor, and a part every run logs unchanged (the
 * agent's configuration in `run.started`, registered immutable) is redacted once, not once per
 * run. Settings changed in place get a new redactor. A redactor keeps nothing but what it gave
 * back for immutable values, weakly, and goes with its settings.
 */
const made = new WeakMap<object, { content: string; redact: EventRedact }>();

/**
 * The redaction every event passes before it is stored: known secret values and, unless
 * `patterns` is false, credential-looking text, from every string of the payload (object keys
 * included) but its `type`.
 */
export function eventRedactor(settings: Omit<RedactionSettings, "keep"> = {}): EventRedact {
  // Stryker disable next-line EqualityOperator,ArrayDeclaration: equivalent, the content only has to change when the settings do (either reading of `patterns`, any stand-in for no secrets)
  const content = JSON.stringify([settings.patterns !== false, settings.secrets ?? []]);
  const known = made.get(settings);
  if (known?.content === content) return known.redact;
  // The settings named, not spread: on Node 20 (V8 11) a spread gives each run's a hidden class of its own.
  const redactor = createRedactor({ secrets: settings.secrets, patterns: settings.patterns, keep: EVENT_WORDS });
  const redact = <P extends { type: RunEventType }>(payload: P): P => redactor.value(payload, "type");
  made.set(settings, { content, redact });
  return redact;
}
