import { inspect } from "node:util";
import { REDACTION } from "../../policy/secrets.js";

/**
 * Secrets shorter than this are not searched for: a one- or two-letter "key" would shred
 * ordinary words, and no real credential is that short.
 */
const MIN_SECRET_LENGTH = 4;

const searchable = (secrets: readonly string[]): string[] => secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);

/**
 * Removes credentials from text that may reach an error message, a log or a bundle. Providers
 * sometimes echo the key they were sent (a proxy's "invalid key sk-..." page, an SDK message),
 * so every message a provider builds passes through here, whatever its origin.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of searchable(secrets)) scrubbed = scrubbed.split(secret).join(REDACTION);
  return scrubbed.replace(/\b(Bearer)\s+[^\s"',;]+/gi, `$1 ${REDACTION}`);
}

/**
 * The error to keep as a ProviderError's `cause`, or undefined when anything inside it (its
 * message, its parsed body, a nested cause) carries a secret: printing an error prints its
 * cause, so a leaky cause is dropped rather than kept for debugging.
 */
export function safeCause(error: unknown, secrets: readonly string[]): unknown {
  const text = inspect(error, { depth: 6 });
  return searchable(secrets).some((secret) => text.includes(secret)) ? undefined : error;
}
