/** Small pure helpers the built-in scorers share: comparing values and describing them briefly. */
import type { ToolCallView } from "../src/eval/run-view.js";

export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A short, stable rendering of any value for a reason line (sorted keys, clipped). */
export function describe(value: unknown, max = 120): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === "string") return JSON.stringify(clip(value, max));
  if (value === undefined) return "undefined";
  try {
    return clip(JSON.stringify(sortKeys(value)) ?? String(value), max);
  } catch {
    return clip(String(value), max);
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object" && !(value instanceof RegExp)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  const otherKeys = Object.keys(right).filter((key) => right[key] !== undefined);
  return keys.length === otherKeys.length && keys.every((key) => deepEqual(left[key], right[key]));
}

/**
 * `expected` describes part of `actual`: every key it names must match, recursively; other keys
 * of `actual` are ignored. Arrays match element by element and must have the same length. A
 * RegExp matches a string, and a function is a predicate.
 */
export function matchesPartial(actual: unknown, expected: unknown): boolean {
  if (expected instanceof RegExp) return typeof actual === "string" && new RegExp(expected.source, expected.flags).test(actual);
  if (typeof expected === "function") return Boolean((expected as (value: unknown) => unknown)(actual));
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => matchesPartial(actual[index], item));
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, item]) => item === undefined || matchesPartial((actual as Record<string, unknown>)[key], item));
  }
  return Object.is(actual, expected);
}

export function matchesArgs(actual: unknown, expected: unknown, mode: "strict" | "partial" | "ignore"): boolean {
  if (mode === "ignore" || expected === undefined) return true;
  return mode === "strict" ? deepEqual(actual, expected) : matchesPartial(actual, expected);
}

export function describeCall(call: ToolCallView): string {
  const args = call.rawArgs !== undefined ? call.rawArgs : describe(call.args ?? {}, 80);
  const outcome =
    call.status === "blocked" && call.blocked
      ? `blocked: ${call.blocked.reason}`
      : call.status === "failed" && call.error
        ? `failed: ${call.error.kind}`
        : call.status;
  return `${call.name}(${args}) ${outcome}`;
}

export function describeCalls(calls: readonly ToolCallView[], max = 6): string {
  if (calls.length === 0) return "none";
  const shown = calls.slice(0, max).map(describeCall);
  return shown.join("; ") + (calls.length > max ? `; … ${calls.length - max} more` : "");
}

export function normaliseText(text: string, options: { caseSensitive?: boolean; trim?: boolean }): string {
  let out = options.trim ? text.trim().replace(/\s+/g, " ") : text;
  if (options.caseSensitive === false) out = out.toLowerCase();
  return out;
}

export function toRegExp(pattern: unknown, flags?: string): RegExp {
  if (pattern instanceof RegExp) return flags === undefined ? new RegExp(pattern.source, pattern.flags) : new RegExp(pattern.source, flags);
  if (typeof pattern === "string") return new RegExp(pattern, flags ?? "");
  throw new TypeError(`expected a RegExp or a pattern string, got ${describe(pattern)}`);
}

export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
