/** Small pure helpers the built-in scorers share: comparing values and describing them briefly. */
import type { ToolCallView } from "../src/contracts/index.js";

export function clip(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A short, stable rendering of any value for a reason line (sorted keys, clipped). */
export function describe(value: unknown, max = 120): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === "string") return JSON.stringify(clip(value, max));
  // Stryker disable next-line ConditionalExpression: equivalent, JSON.stringify(undefined) is undefined, and the fallback below is String(undefined), the same text
  if (value === undefined) return "undefined";
  try {
    return clip(JSON.stringify(sortKeys(value)) ?? String(value), max);
  } catch {
    return clip(String(value), max);
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  // Shown by what they hold (JSON would show a Map or a Set as {}).
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : `Date(${value.toISOString()})`;
  if (value instanceof Map) return { Map: [...value].map(([key, item]) => [sortKeys(key), sortKeys(item)]) };
  if (value instanceof Set) return { Set: [...value].map(sortKeys) };
  if (value !== null && typeof value === "object" && !(value instanceof RegExp)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * Deep equality of data: primitives by Object.is, arrays element by element, plain objects key
 * by key (a key holding undefined counts as absent), and Date, RegExp, Map, Set, typed arrays
 * and boxed primitives by what they hold. Other objects (class instances) are equal when they
 * have the same prototype and equal own keys.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  const left = a as object;
  const right = b as object;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((item, index) => deepEqual(item, other[index]));
  }
  if (!samePrototype(left, right)) return false;
  if (left instanceof Date) return Object.is(left.getTime(), (right as Date).getTime());
  if (left instanceof RegExp) return left.source === (right as RegExp).source && left.flags === (right as RegExp).flags;
  if (left instanceof Map) return mapsEqual(left, right as Map<unknown, unknown>);
  if (left instanceof Set) return setsEqual(left, right as Set<unknown>);
  if (ArrayBuffer.isView(left)) {
    const x = new Uint8Array(left.buffer, left.byteOffset, left.byteLength);
    const y = new Uint8Array((right as ArrayBufferView).buffer, (right as ArrayBufferView).byteOffset, (right as ArrayBufferView).byteLength);
    return x.length === y.length && x.every((byte, index) => byte === y[index]);
  }
  if (left instanceof Number || left instanceof String || left instanceof Boolean) return Object.is(left.valueOf(), (right as typeof left).valueOf());
  const l = left as Record<string, unknown>;
  const r = right as Record<string, unknown>;
  const keys = Object.keys(l).filter((key) => l[key] !== undefined);
  const otherKeys = Object.keys(r).filter((key) => r[key] !== undefined);
  return keys.length === otherKeys.length && keys.every((key) => Object.hasOwn(r, key) && deepEqual(l[key], r[key]));
}

/** Plain objects (Object.prototype or null) count as one kind; anything else must share its prototype. */
function samePrototype(a: object, b: object): boolean {
  const pa = Object.getPrototypeOf(a) as object | null;
  const pb = Object.getPrototypeOf(b) as object | null;
  if (pa === pb) return true;
  return (pa === null || pa === Object.prototype) && (pb === null || pb === Object.prototype);
}

function mapsEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>): boolean {
  if (a.size !== b.size) return false;
  const unmatched = [...b.keys()];
  for (const [key, value] of a) {
    // A key is found by identity first (primitives, the same object), then by deep equality.
    let index = unmatched.findIndex((other) => Object.is(other, key));
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, for a primitive or null deep equality is Object.is, so searching by value as well finds the same key
    if (index < 0 && key !== null && typeof key === "object") index = unmatched.findIndex((other) => deepEqual(other, key));
    if (index < 0 || !deepEqual(value, b.get(unmatched[index]))) return false;
    unmatched.splice(index, 1);
  }
  return true;
}

function setsEqual(a: Set<unknown>, b: Set<unknown>): boolean {
  if (a.size !== b.size) return false;
  const unmatched = [...b];
  for (const item of a) {
    let index = unmatched.findIndex((other) => Object.is(other, item));
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, for a primitive or null deep equality is Object.is, so searching by value as well finds the same member
    if (index < 0 && item !== null && typeof item === "object") index = unmatched.findIndex((other) => deepEqual(other, item));
    if (index < 0) return false;
    unmatched.splice(index, 1);
  }
  return true;
}

/** Objects that partial matching compares whole (deepEqual), not key by key. */
function isOpaque(value: object): boolean {
  return value instanceof Date || value instanceof Map || value instanceof Set || ArrayBuffer.isView(value) || value instanceof Number || value instanceof String || value instanceof Boolean;
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
    if (isOpaque(expected)) return deepEqual(actual, expected);
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
  // Stryker disable next-line ConditionalExpression: equivalent for undefined, which JSON.stringify turns into undefined and the last line into "" as well (null is tested)
  if (value === undefined || value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Where two values differ: the path (`key42.value`, `items[2]`, `(root)`) and both values there. */
export interface Difference {
  path: string;
  expected: unknown;
  actual: unknown;
}

function pathTo(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent === "(root)" ? "" : parent}[${key}]`;
  const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  // Stryker disable next-line MethodExpression: equivalent, a quoted name starts and ends with a quote, and an identifier has neither
  if (parent === "(root)") return name.startsWith('"') ? `[${name}]` : name;
  // Stryker disable next-line MethodExpression: equivalent, a quoted name starts and ends with a quote, and an identifier has neither
  return name.startsWith('"') ? `${parent}[${name}]` : `${parent}.${name}`;
}

/**
 * The first places (at most `max`) where `actual` differs from `expected`, walking both the
 * way `deepEqual` compares them (`partial`: the way `matchesPartial` does, so only what
 * `expected` names is compared). Empty when they are equal. Values that are compared whole
 * (Date, Map, Set, ...) differ at their own path.
 */
export function differences(expected: unknown, actual: unknown, mode: "strict" | "partial" = "strict", max = 3): Difference[] {
  const found: Difference[] = [];
  const same = (a: unknown, b: unknown) => (mode === "partial" ? matchesPartial(b, a) : deepEqual(a, b));
  const walk = (want: unknown, got: unknown, path: string): void => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent for the count, every caller already stops at max before walking further
    if (found.length >= max || same(want, got)) return;
    const plain = (value: unknown): value is Record<string, unknown> =>
      // Stryker disable next-line ConditionalExpression: equivalent for the type test, a primitive fails samePrototype with a plain object anyway
      value !== null && typeof value === "object" && !Array.isArray(value) && !isOpaque(value as object) && !(value instanceof RegExp) && samePrototype(value as object, {});
    if (Array.isArray(want) && Array.isArray(got)) {
      const length = Math.max(want.length, got.length);
      for (let index = 0; index < length && found.length < max; index++) {
        if (index >= got.length) found.push({ path: pathTo(path, index), expected: want[index], actual: "(missing: the array is shorter)" });
        else if (index >= want.length) {
          // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: equivalent, past the end of the expected array the lengths differ, so the item is reported in either mode
          if (mode === "strict" || want.length !== got.length) found.push({ path: pathTo(path, index), expected: "(nothing: the array is longer)", actual: got[index] });
        } else walk(want[index], got[index], pathTo(path, index));
      }
      return;
    }
    if (plain(want) && plain(got)) {
      // Stryker disable next-line ArrayDeclaration: equivalent, a key neither side has is skipped below
      const keys = new Set([...Object.keys(want), ...(mode === "strict" ? Object.keys(got) : [])]);
      for (const key of [...keys].sort()) {
        if (found.length >= max) return;
        if (want[key] === undefined && got[key] === undefined) continue;
        if (!Object.hasOwn(got, key) || got[key] === undefined) found.push({ path: pathTo(path, key), expected: want[key], actual: "(missing)" });
        else if (want[key] === undefined) found.push({ path: pathTo(path, key), expected: "(no such key)", actual: got[key] });
        else walk(want[key], got[key], pathTo(path, key));
      }
      return;
    }
    found.push({ path, expected: want, actual: got });
  };
  walk(expected, actual, "(root)");
  return found;
}

/** `at key42.value: expected 42, got 41; at ...` — for a reason line. */
export function describeDifferences(list: readonly Difference[]): string {
  const shown = (value: unknown) => (typeof value === "string" && value.startsWith("(") && value.endsWith(")") ? value : describe(value, 80));
  return list.map((item) => `at ${item.path}: expected ${shown(item.expected)}, got ${shown(item.actual)}`).join("; ");
}

/** Where two texts first differ, with a little of each around it. */
export function textDifference(expected: string, actual: string): string {
  let index = 0;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent for two different texts, which are all it is given: past the shorter one's end a character meets undefined and the loop stops anyway
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  const from = Math.max(0, index - 20);
  const around = (text: string) => `${from > 0 ? "…" : ""}${text.slice(from, index + 40)}${text.length > index + 40 ? "…" : ""}`;
  return `first difference at character ${index}: expected ${JSON.stringify(around(expected))}, got ${JSON.stringify(around(actual))}`;
}
