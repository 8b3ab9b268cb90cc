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

/**
 * The redaction every event passes before it is stored: known secret values and, unless
 * `patterns` is false, credential-looking text, from every string of the payload (object keys
 * included) but its `type`.
 */
export function eventRedactor(settings: Omit<RedactionSettings, "keep"> = {}): <P extends { type: RunEventType }>(payload: P) => P {
  // The settings named, not spread: on Node 20 (V8 11) a spread gives each run's a hidden class of its own.
  const redactor = createRedactor({ secrets: settings.secrets, patterns: settings.patterns, keep: EVENT_WORDS });
  return <P extends { type: RunEventType }>(payload: P): P => {
    return redactor.value(payload, "type");
  };
}
