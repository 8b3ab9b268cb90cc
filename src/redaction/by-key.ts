import { REDACTION } from "./patterns.js";

/**
 * Whether a key names a secret is decided on its words, split at separators (`_`, `-`, `.`,
 * spaces) and camelCase boundaries: the name ends in a secret word (`token`, `secret`,
 * `password`, …) or in one of the word pairs `api key`, `access token`, `client secret`,
 * `private key`, however they are joined (`api_key`, `x.apiKey`, `X-API-Key`, `accesstoken`).
 * A key that merely contains such a word is not a secret: `max_tokens`, `redact_secrets` and
 * `api_key_file` are settings, and redacting them would make a log lie.
 */
const SECRET_WORDS: ReadonlySet<string> = new Set(["token", "secret", "password", "passwd", "authorization", "credential", "credentials", "apikey", "accesstoken", "clientsecret", "privatekey"]);
const WORD_BOUNDARY = /[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

/** Whether a config key or an environment variable's name says it holds a secret (`api_key`, `GITHUB_TOKEN`, `access.token`). */
export function isSecretKey(name: string): boolean {
  const words = name.split(WORD_BOUNDARY).filter((word) => word !== "");
  const last = words[words.length - 1]?.toLowerCase();
  if (last === undefined) return false;
  return SECRET_WORDS.has(last) || SECRET_WORDS.has(`${words[words.length - 2]?.toLowerCase() ?? ""}${last}`);
}

/** The values of the secret-named keys of config data: the key values a run must never record. */
export function secretValues(value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown, secret: boolean): void => {
    if (typeof node === "string") {
      if (secret) found.push(node);
    } else if (Array.isArray(node)) node.forEach((item) => walk(item, secret));
    else if (node !== null && typeof node === "object") for (const [key, item] of Object.entries(node)) walk(item, secret || isSecretKey(key));
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
      setOwn(out, key, isSecretKey(key) && item !== undefined && item !== null ? REDACTED : redactSecrets(item));
    }
    return out;
  }
  return value;
}

/**
 * Sets a key as an own data property. Plain assignment of "__proto__" would set the object's
 * prototype instead and lose the key, which JSON.parse gives as ordinary data.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
