import { CanonicalJsonError } from "../errors/index.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Canonical JSON: object keys sorted by code unit, no insignificant whitespace, and a loud
 * error for anything JSON would silently change (NaN, Infinity, BigInt, undefined in an array,
 * functions, symbols, class instances, cycles). Logs, request keys and bundles hash this text,
 * so two equal values must always give the same bytes.
 *
 * An object property whose value is `undefined` is omitted, as JSON.stringify does: optional
 * fields are common in our own types and carry no information.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, "$", parts, new Set());
  return parts.join("");
}

function write(value: unknown, path: string, out: string[], ancestors: Set<object>): void {
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(value)) {
        throw new CanonicalJsonError(`${String(value)} cannot be represented in JSON`, path);
      }
      out.push(JSON.stringify(value));
      return;
    case "bigint":
      throw new CanonicalJsonError("a BigInt cannot be represented in JSON; convert it to a string or number", path);
    case "undefined":
      throw new CanonicalJsonError("undefined cannot be represented in JSON here", path);
    case "function":
    case "symbol":
      throw new CanonicalJsonError(`a ${typeof value} cannot be represented in JSON`, path);
  }
  if (value === null) {
    out.push("null");
    return;
  }
  const object = value as object;
  if (ancestors.has(object)) throw new CanonicalJsonError("the value contains a cycle", path);
  ancestors.add(object);
  if (Array.isArray(object)) {
    out.push("[");
    for (let i = 0; i < object.length; i++) {
      if (i > 0) out.push(",");
      // A hole or undefined in an array would become null: refuse rather than change the value.
      if (!(i in object)) throw new CanonicalJsonError("a sparse array hole cannot be represented in JSON", `${path}[${i}]`);
      write(object[i], `${path}[${i}]`, out, ancestors);
    }
    out.push("]");
  } else {
    const proto = Object.getPrototypeOf(object) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const name = (object as { constructor?: { name?: string } }).constructor?.name ?? "object";
      throw new CanonicalJsonError(`a ${name} instance cannot be represented in JSON; convert it to plain data first`, path);
    }
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    out.push("{");
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      if (!first) out.push(",");
      first = false;
      out.push(JSON.stringify(key), ":");
      write(item, `${path}.${key}`, out, ancestors);
    }
    out.push("}");
  }
  ancestors.delete(object);
}

/** Parses JSON text and re-emits it canonically. */
export function canonicalize(jsonText: string): string {
  return canonicalJson(JSON.parse(jsonText) as unknown);
}
