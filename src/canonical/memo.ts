import { digest } from "./hash.js";

const digests = new WeakMap<object, string>();

/**
 * The digest of a value that never changes after it is built (tool specs, a loaded config),
 * remembered by identity: agents hash the same tool list on every run and every model call.
 * Never pass something that is mutated later — the remembered digest would be stale.
 */
export function frozenDigest(value: object): string {
  let known = digests.get(value);
  if (known === undefined) {
    known = digest(value);
    digests.set(value, known);
  }
  return known;
}
