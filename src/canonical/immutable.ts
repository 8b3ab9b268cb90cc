/**
 * Values that can never change, known by identity, so that what is derived from one (its
 * canonical text, its redacted form) is derived once and kept. An agent sends its whole
 * conversation on every step; without this, every step re-serialised, re-hashed and re-redacted
 * every earlier message, and a run cost the square of its steps.
 *
 * Only `immutable` and `immutableList` put a value here, and they freeze it and everything in it
 * first: a registered object cannot be changed afterwards (an assignment throws in strict code),
 * so nothing remembered about it can go stale. A value merely frozen by someone else is not
 * registered — its insides may still change.
 */

const registered = new WeakSet<object>();

/**
 * Freezes plain data (objects, arrays, primitives) deeply, in place, and registers every object
 * in it. Returns the value. Anything but plain data (a class instance, a function) is refused
 * with a TypeError: it is not what canonical JSON writes, so nothing may be derived from it.
 */
export function immutable<T>(value: T): T {
  register(value, 0);
  return value;
}

/**
 * A frozen, registered list of `items` (registered too): a new array this function makes, so no
 * index of it can be an accessor, and checking each index is not needed — a conversation's list
 * is made again on every step, and is registered then.
 */
export function immutableList<T>(items: readonly T[], grownFrom?: readonly T[]): readonly T[] {
  // A plain array whatever `items` is (slice would keep a subclass).
  const list = Array.from(items);
  // Each item checked before any is frozen, as `immutable` does.
  const parts = new Set<object>();
  for (const item of list) collect(item, 1, parts);
  commit(parts);
  Object.freeze(list);
  registered.add(list);
  if (grownFrom !== undefined && registered.has(grownFrom) && startsWith(list, grownFrom)) {
    // Linked to the nearest list something was derived from: a conversation passes through
    // lists no request ever wrote (one per event of a step). Weakly: a link never keeps an
    // earlier list alive (a chain of them would keep a whole run's lists); a list gone is only
    // a continuation lost, and the text is made from the start.
    const target = written.has(grownFrom) ? grownFrom : prefixes.get(grownFrom)?.deref();
    if (target !== undefined) prefixes.set(list, new WeakRef(target));
  }
  return list;
}

/** Lists something was derived from (see `noteWritten`). */
const written = new WeakSet<readonly unknown[]>();

/** Called when something is derived from a registered list (its text, a hash of it): later lists grown from it continue from it. */
export function noteWritten(list: readonly unknown[]): void {
  written.add(list);
}

/**
 * For a list `immutableList` made from a longer copy of a registered one, the nearest earlier
 * list whose text was made: the list's text (and a hash of it) can continue that one's instead
 * of starting over. Checked (the same items, in the same places), not taken on trust.
 */
export function grownFrom(list: readonly unknown[]): readonly unknown[] | undefined {
  return prefixes.get(list)?.deref();
}

const prefixes = new WeakMap<readonly unknown[], WeakRef<readonly unknown[]>>();

function startsWith(list: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length > list.length) return false;
  for (let index = 0; index < prefix.length; index++) if (list[index] !== prefix[index]) return false;
  return true;
}

/**
 * Freezes plain data deeply, in place, without registering it: nothing may change it, but
 * nothing is derived from it and kept either (that is what `immutable` is for, and it costs
 * more than it saves on a value written once or twice). A frozen object is taken as frozen
 * all the way down, as everything here freezes it.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** Whether `value` was registered by `immutable` (and so can never change). */
export function isImmutable(value: unknown): value is object {
  return typeof value === "object" && value !== null && registered.has(value);
}

const MAX_DEPTH = 512;

/**
 * Registers `value` and everything in it, or, when any part of it cannot be registered, throws
 * having frozen and registered nothing: every part is checked before the first is frozen.
 */
function register(value: unknown, depth: number): void {
  const parts = new Set<object>();
  collect(value, depth, parts);
  commit(parts);
}

/** Freezes and registers parts that `collect` checked. */
function commit(parts: ReadonlySet<object>): void {
  for (const part of parts) Object.freeze(part);
  for (const part of parts) registered.add(part);
}

/** The parts of `value` not yet registered, each checked to be plain data (see `immutable`). */
function collect(value: unknown, depth: number, parts: Set<object>): void {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function") throw new TypeError("immutable: a function is not plain data");
    return;
  }
  if (registered.has(value) || parts.has(value)) return;
  // A cycle (or absurd nesting): canonical JSON refuses it anyway, and registering it would never end.
  if (depth >= MAX_DEPTH) throw new TypeError(`immutable: the value contains a cycle (or nests deeper than ${MAX_DEPTH} levels)`);
  const proto = Object.getPrototypeOf(value) as unknown;
  const keys = Object.keys(value);
  if (Array.isArray(value)) {
    // A subclass (its prototype, which anyone may change, could give it a toJSON), a hole or a
    // key besides its indexes: not what JSON.parse of its text gives, which a shared part must be.
    if (proto !== Array.prototype || keys.length !== value.length) throw new TypeError("immutable: only plain arrays (no subclass, hole or extra key) can be registered");
  } else if (proto !== Object.prototype && proto !== null) throw new TypeError("immutable: only plain objects and arrays can be registered");
  // A registered value is shared as it is, and checked as it is (zod reads a hidden property
  // too), while its text holds only what JSON writes: it may hold nothing else. (An array's
  // own `length` is the one own property JSON never writes that belongs there.)
  if (Reflect.ownKeys(value).length !== keys.length + (Array.isArray(value) ? 1 : 0)) {
    throw new TypeError("immutable: the value has a property JSON does not write (not enumerable, or a symbol key)");
  }
  for (const key of keys) {
    // A getter can answer differently each time it is read, frozen or not.
    const property = Object.getOwnPropertyDescriptor(value, key) as PropertyDescriptor;
    if (!("value" in property)) throw new TypeError(`immutable: property ${key} is an accessor, not data`);
    collect(property.value, depth + 1, parts);
  }
  parts.add(value);
}
