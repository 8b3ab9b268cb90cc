const SECRET_KEY = /(api[_-]?key|token|secret|password|authorization|credential)/i;

export const REDACTED = "[redacted]";

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
