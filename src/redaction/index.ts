/**
 * Everything Retrace knows about secrets, in one place: the patterns that look like credentials,
 * the scrub of known secret values from text, and the redaction of secret-named config keys.
 */
export { SECRET_PATTERNS, REDACTION } from "./patterns.js";
export { scrubSecrets, searchable } from "./scrub.js";
export { redactSecrets, REDACTED } from "./by-key.js";
