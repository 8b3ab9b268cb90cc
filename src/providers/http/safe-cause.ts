import { inspect } from "node:util";
import { searchable } from "../../redaction/index.js";

/**
 * The error to keep as a ProviderError's `cause`, or undefined when anything inside it (its
 * message, its parsed body, a nested cause) carries a secret: printing an error prints its
 * cause, so a leaky cause is dropped rather than kept for debugging.
 */
export function safeCause(error: unknown, secrets: readonly string[]): unknown {
  const text = inspect(error, { depth: 6 });
  return searchable(secrets).some((secret) => text.includes(secret)) ? undefined : error;
}
