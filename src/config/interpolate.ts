import { ConfigError } from "../errors/index.js";

/**
 * The most text `${VAR}` references may put into one config value, and into the whole config.
 * A system prompt from a file-sized variable fits; a variable referenced a thousand times that
 * would build gigabytes (and crash with "Invalid string length") is refused by name.
 */
export const MAX_EXPANDED_VALUE_CHARS = 1024 * 1024;
export const MAX_EXPANDED_TOTAL_CHARS = 16 * 1024 * 1024;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

export interface Interpolated {
  value: unknown;
  /** Config paths whose variables were unset with no default, and the variable each named. */
  missing: Map<string, string>;
  /** Every variable a reference named, set or not. */
  referenced: Set<string>;
}

/**
 * Replaces `${VAR}` and `${VAR:default}` in string values. An unset variable without a default
 * leaves the value out (so that only the features that need it complain, naming the variable)
 * when it is the whole value, or empty text inside a longer string.
 */
export function interpolateEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  /** Turns a whole-value reference's text into the type its place expects (`max_steps: ${STEPS:5}`). */
  coerce: (segments: readonly (string | number)[], text: string) => unknown = (_segments, text) => text,
  file?: string,
): Interpolated {
  const missing = new Map<string, string>();
  const referenced = new Set<string>();
  let total = 0;
  const expanded = (path: string, added: number, soFar: number): number => {
    total += added;
    const value = soFar + added;
    if (value > MAX_EXPANDED_VALUE_CHARS || total > MAX_EXPANDED_TOTAL_CHARS) {
      const limit = value > MAX_EXPANDED_VALUE_CHARS ? `${MAX_EXPANDED_VALUE_CHARS} characters in one value` : `${MAX_EXPANDED_TOTAL_CHARS} characters in the whole config`;
      throw new ConfigError(`environment variables expand to more than ${limit}: is a variable much larger than meant, or referenced too often?`, {
        ...(file !== undefined ? { file } : {}),
        ...(path ? { path } : {}),
      });
    }
    return value;
  };
  const walk = (node: unknown, path: string, segments: (string | number)[]): unknown => {
    if (typeof node === "string") {
      const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}$/.exec(node);
      if (whole) {
        const [, name, fallback] = whole as unknown as [string, string, string | undefined];
        referenced.add(name);
        const resolved = env[name] ?? fallback;
        if (resolved === undefined) missing.set(path, name);
        if (resolved !== undefined) expanded(path, resolved.length, 0);
        return resolved === undefined ? undefined : coerce(segments, resolved);
      }
      let length = node.length;
      return node.replace(REFERENCE, (match: string, name: string, fallback: string | undefined) => {
        referenced.add(name);
        const resolved = env[name] ?? fallback;
        if (resolved === undefined) missing.set(path, name);
        // Counted before the text is built: the limit must hold before memory runs out.
        length = expanded(path, (resolved ?? "").length, length - match.length);
        return resolved ?? "";
      });
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, `${path}[${index}]`, [...segments, index]));
    if (node !== null && typeof node === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        const resolved = walk(item, path ? `${path}.${key}` : key, [...segments, key]);
        if (resolved !== undefined) out[key] = resolved;
      }
      return out;
    }
    return node;
  };
  return { value: walk(value, "", []), missing, referenced };
}
