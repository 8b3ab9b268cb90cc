/**
 * Everything Retrace knows about secrets, in one place: the patterns that look like credentials,
 * the scrub of known secret values from text, the redaction of secret-named config keys, and the
 * one pass that removes both from every event a run records.
 */
export { SECRET_PATTERNS, REDACTION } from "./patterns.js";
export { scrubSecrets, searchable } from "./scrub.js";
export { redactSecrets, isSecretKey, secretValues, REDACTED } from "./by-key.js";
export { createRedactor, type Redactor, type RedactionSettings } from "./redactor.js";
export { eventRedactor, PROVIDER_KEY_VARIABLES } from "./events.js";
export { scrubbedStream, type ScrubbedStream } from "./stream.js";
