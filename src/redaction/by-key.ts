import { REDACTION } from "./patterns.js";

/**
 * Whole key names that hold secrets (`api_key`, `openai_api_key`, `access_token`, `password`,
 * `Authorization`, ...), not any key that merely contains such a word: `max_tokens` and
 * `redact_secrets` are settings, and redacting them would make a log lie.
 */
const SECRET_KEY = /^(.*[_-])?(api[_-]?key|token|access[_-]?token|secret|client[_-]?secret|password|passwd|authorization|credentials?|private[_-]?key)$/i;

/** What a secret is replaced with wherever it would be recorded. */
export const REDACTED = REDACTION;

/** A copy of config data with every secret-looking value replaced, for logs and bundles. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) && item !== undefined && item !== null ? REDACTED : redactSecrets(item);
    }
    return out;
  }
  return value;
}
