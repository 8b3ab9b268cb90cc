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
): Interpolated {
  const missing = new Map<string, string>();
  const referenced = new Set<string>();
  const walk = (node: unknown, path: string, segments: (string | number)[]): unknown => {
    if (typeof node === "string") {
      const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}$/.exec(node);
      if (whole) {
        const [, name, fallback] = whole as unknown as [string, string, string | undefined];
        referenced.add(name);
        const resolved = env[name] ?? fallback;
        if (resolved === undefined) missing.set(path, name);
        return resolved === undefined ? undefined : coerce(segments, resolved);
      }
      return node.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
        referenced.add(name);
        const resolved = env[name] ?? fallback;
        if (resolved === undefined) missing.set(path, name);
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
