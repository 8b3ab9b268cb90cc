import { REDACTION } from "./patterns.js";

/**
 * Whole key names that hold secrets (`api_key`, `openai_api_key`, `access_token`, `password`,
 * `Authorization`, ...), not any key that merely contains such a word: `max_tokens` and
 * `redact_secrets` are settings, and redacting them would make a log lie.
 */
const SECRET_KEY = /^(.*[_-])?(api[_-]?key|token|access[_-]?token|secret|client[_-]?secret|password|passwd|authorization|credentials?|private[_-]?key)$/i;

/** Whether a config key or an environment variable's name says it holds a secret (`api_key`, `GITHUB_TOKEN`). */
export function isSecretKey(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** The values of the secret-named keys of config data: the key values a run must never record. */
export function secretValues(value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown, secret: boolean): void => {
    if (typeof node === "string") {
      if (secret) found.push(node);
    } else if (Array.isArray(node)) node.forEach((item) => walk(item, secret));
    else if (node !== null && typeof node === "object") for (const [key, item] of Object.entries(node)) walk(item, secret || SECRET_KEY.test(key));
  };
  walk(value, false);
  return found;
}

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
