import { REDACTION } from "./patterns.js";

/**
 * Secrets shorter than this are not searched for: a one- or two-letter "key" would shred
 * ordinary words, and no real credential is that short.
 */
const MIN_SECRET_LENGTH = 4;

export const searchable = (secrets: readonly string[]): string[] => secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);

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
