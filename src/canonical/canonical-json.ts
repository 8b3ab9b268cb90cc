import { CanonicalJsonError } from "../errors/index.js";
import { grownFrom, immutable, isImmutable, noteWritten } from "./immutable.js";

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
  const form = canonicalForm(value, false);
  return form.text ?? canonicalText(form);
}

/**
 * A value as canonical JSON will write it: a fresh copy of plain data, equal to what `JSON.parse`
 * of the canonical text gives (undefined properties left out, -0 as 0), sharing nothing with
 * `value` but strings and values registered `immutable` (which can never change, and hold
 * nothing a reader of the text would not). A writer can validate and keep the copy instead of
 * parsing its own bytes back, and write it with `canonicalText`; no big text is copied to learn
 * that it can be stored, and an immutable part's text is made once, however often it is written.
 */
export interface CanonicalCopy {
  readonly copy: unknown;
  /**
   * False for the rare value with an array-index or "__proto__" key, which a plain object
   * cannot hold in sorted order: its copy is parsed from the general writer's text.
   */
  readonly sorted: boolean;
  /**
   * It holds a string long enough for the writer to splice in rather than copy, or an immutable
   * part whose known text it splices in (a long one, or a list). A short immutable part
   * (SPLICE_KNOWN) whose keys are in order is shared too, but written again by JSON.stringify;
   * a short object out of order is copied.
   */
  readonly big: boolean;
}

export function canonicalCopy(value: unknown): CanonicalCopy {
  return canonicalForm(value, true);
}

/** The canonical text of a canonical copy (of the copy's top level changed by hand, keys kept in order). */
export function canonicalText(form: CanonicalCopy): string {
  if (!form.sorted) return write(form.copy, [], 0);
  // Stryker disable next-line ConditionalExpression: equivalent, `writeCopy` gives the same text as the fast path, only slower
  if (!form.big) return JSON.stringify(form.copy);
  return writeCopy(form.copy, true);
}

/**
 * The parts of sorted copies that hold a spliced part (a long string, a long immutable text)
 * somewhere inside. The writer walks only these and hands every other part — already sorted,
 * checked and plain — to JSON.stringify: an event that splices in its conversation costs the
 * walk of the few objects above it, not a string concatenation per key of the whole event.
 */
const splicing = new WeakSet<object>();

/**
 * Writes a sorted copy. Its top level may have been changed by hand (see canonicalText), so it
 * is sorted and checked again as `write` does; below it every part is what sortedCopy made:
 * keys in order, no undefined, nothing JSON would change.
 */
function writeCopy(value: unknown, top: boolean): string {
  if (typeof value !== "object" || value === null) {
    // Below the top, sortedCopy checked it; a long string is spliced as `write` splices it.
    if (top || (typeof value === "string" && value.length >= SPLICE_LENGTH)) return write(value, [], 0);
    return JSON.stringify(value);
  }
  if (isImmutable(value)) {
    const known = knownTexts.get(value);
    if (known !== undefined) return known.text;
  }
  if (!top && !splicing.has(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    // Stryker disable next-line BooleanLiteral: equivalent, a part of a sorted copy is sorted and plain: checking it again changes nothing
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + writeCopy(value[i], false);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let keys = Object.keys(record);
  if (top) {
    checkPlain(record);
    keys = sortedKeys(record);
  }
  let out = "{";
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    // Stryker disable next-line BooleanLiteral: equivalent, a part of a sorted copy is sorted and plain: checking it again changes nothing
    // A value set by hand at the top is checked as `write` checks it.
    out += (first ? "" : ",") + JSON.stringify(key) + ":" + (top && (typeof item !== "object" || item === null) ? write(item, [], 0) : writeCopy(item, false));
    first = false;
  }
  return `${out}}`;
}

/** canonicalJson's walk; `parse` asks for a copy also of a value only the general writer can write. */
function canonicalForm(value: unknown, parse: boolean): CanonicalCopy & { text?: string } {
  const path: (string | number)[] = [];
  const splicedBefore = splicedParts;
  try {
    let copy: unknown;
    let refused: Refusal | undefined;
    try {
      copy = sortedCopy(value, 0);
    } catch (error) {
      // The fast walk keeps no path (a push and a pop per key): the general writer, which
      // refuses the same values in the same order, walks again to name the place.
      if (!(error instanceof Refusal)) throw error;
      refused = error;
      copy = INDEX_KEY;
    }
    if (copy !== INDEX_KEY) return { copy, sorted: true, big: splicedParts !== splicedBefore };
    const text = write(value, path, 0);
    // Only a getter that answered differently the second time gets here: refused all the same.
    if (refused) throw refused;
    return { copy: parse ? (JSON.parse(text) as unknown) : undefined, sorted: false, big: false, text };
  } catch (error) {
    if (error instanceof Refusal) throw new CanonicalJsonError(error.message, formatPath(path));
    throw error;
  }
}

/** What `plainCopyAt` gives when the part is not plain (see there). */
export const NOT_PLAIN: unique symbol = Symbol("not plain");

/**
 * The sorted copy of a part that sits `depth` levels down in a value, when JSON.stringify of
 * the copy writes its canonical text: nothing in it to splice in, no key a plain object cannot
 * hold in order, nothing refused. Otherwise NOT_PLAIN, and the whole value is for
 * `canonicalCopy`, which names a refusal's place. For a writer that copies the rest itself.
 */
export function plainCopyAt(value: unknown, depth: number): unknown {
  const before = splicedParts;
  try {
    const copy = sortedCopy(value, depth);
    return copy === INDEX_KEY || splicedParts !== before ? NOT_PLAIN : copy;
  } catch (error) {
    if (error instanceof Refusal) return NOT_PLAIN;
    throw error;
  }
}

const twins = new WeakMap<object, object>();

/**
 * For a short immutable part found `depth` levels down: an equal value, registered immutable
 * too, whose keys are in canonical order, so that JSON.stringify of a copy holding it writes the
 * canonical text (the part itself may hold its keys out of order, as a tool's JSON Schema does).
 * Made once per part, from its known text. NOT_PLAIN for a part the copy walk would splice in
 * for its length, or that its text does not give back as it is.
 */
export function orderedTwin(value: object, depth: number): unknown {
  let known: Known;
  try {
    known = knownText(value, []);
  } catch (error) {
    if (error instanceof Refusal) return NOT_PLAIN;
    throw error;
  }
  if (!known.exact || known.text.length >= SPLICE_KNOWN || depth + known.height >= MAX_DEPTH) return NOT_PLAIN;
  if (known.ordered) return value;
  let twin = twins.get(value);
  if (twin === undefined) {
    twin = immutable(JSON.parse(known.text) as object);
    twins.set(value, twin);
  }
  return twin;
}

/** The longest string a plain copy holds (see SPLICE_LENGTH). */
export const LONGEST_PLAIN_STRING = 64 * 1024 - 1;

/**
 * Strings this long are spliced into the text (`"` + text + `"`) when they need no escape,
 * instead of being copied by JSON.stringify: V8 joins strings as ropes, so a 50 MB answer's
 * body then shares the answer's memory instead of holding a second 50 MB (the memory store
 * keeps bodies; a SQLite insert flattens the rope once, as it would read a flat copy).
 */
// Stryker disable next-line ArithmeticOperator: equivalent, a string that needs no escape is written the same spliced or copied; the length only decides the memory
const SPLICE_LENGTH = LONGEST_PLAIN_STRING + 1;
/**
 * An immutable part whose known text is shorter than this is written again by JSON.stringify
 * (keys in order) or copied (an object out of order), which costs less than the walk a splice
 * needs; a longer one (a conversation, on every step) is spliced in.
 */
const SPLICE_KNOWN = 2048;
/** What JSON.stringify would escape in a string (surrogates conservatively: only lone ones are). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/**
 * Counts what the walk met that the writer splices in (long strings, immutable parts); a
 * counter, not a flag, so that a nested walk cannot reset it.
 */
let splicedParts = 0;

const MAX_DEPTH = 512;

/** Thrown inside the walk; `path` still holds where it happened, and becomes the error's place. */
class Refusal extends Error {}

function formatPath(path: readonly (string | number)[]): string {
  let text = "$";
  for (const key of path) text += typeof key === "number" ? `[${key}]` : `.${key}`;
  return text;
}

/** Returned by sortedCopy when a key cannot keep its place in a plain object copy. */
const INDEX_KEY = Symbol("unsortable key");

/**
 * Hot path (every event is serialised with it): a copy with sorted keys, checked on the way,
 * then one native JSON.stringify. Engines order array-index keys ("7", "10") numerically
 * whatever the insertion order, so an object with such a key (or "__proto__") sends the value
 * to `write`.
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "string") {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent for the text, the count only picks the writer
      if (value.length >= SPLICE_LENGTH) splicedParts++;
      return value;
    }
    check(value);
    // JSON writes -0 as 0: the copy holds what a reader of the text will hold.
    return value === 0 ? 0 : value;
  }
  if (depth >= MAX_DEPTH) throw new Refusal(`the value contains a cycle (or nests deeper than ${MAX_DEPTH} levels)`);
  if (isImmutable(value)) {
    // Shared, not copied: it can never change, and its text is known. One that a reader of the
    // text would not get back as it is (an undefined property, a -0, an index key) is copied.
    const known = knownText(value, []);
    if (known.exact && depth + known.height < MAX_DEPTH) {
      // A short one whose keys are in order is cheaper for JSON.stringify to write again than
      // the walk a splice costs, and it writes the canonical text. A long one, or a list (a
      // conversation, which a store's shortcut knows by identity), is spliced in. A short
      // object out of order is copied below: cheaper than the walk above a splice.
      if (known.ordered && known.text.length < SPLICE_KNOWN) return value;
      if (known.text.length >= SPLICE_KNOWN || Array.isArray(value)) {
        splicedParts++;
        return value;
      }
    }
  }
  if (Array.isArray(value)) {
    // Stryker disable next-line ArrayDeclaration: equivalent, the length is only preallocation; every index is assigned in order
    // The length read once: a getter that shrinks the array as it is read leaves the indexes it
    // cut off as holes, refused, never as undefined slots of a copy JSON writes as null.
    const length = value.length;
    const copy: unknown[] = new Array(length);
    const before = splicedParts;
    for (let i = 0; i < length; i++) {
      if (!(i in value)) throw new Refusal("a sparse array hole cannot be represented in JSON");
      const item = sortedCopy(value[i], depth + 1);
      // Stryker disable next-line ConditionalExpression: equivalent, giving up on the fast path sends the value to `write`, which gives the same text
      if (item === INDEX_KEY) return INDEX_KEY;
      copy[i] = item;
    }
    if (splicedParts !== before) splicing.add(copy);
    return copy;
  }
  checkPlain(value);
  const keys = sortedKeys(value);
  const copy: Record<string, unknown> = {};
  const before = splicedParts;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const first = key.charCodeAt(0);
    // Assigning "__proto__" would set the copy's prototype instead of adding a key.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent when the test gets wider, sending more keys to `write` (same text, slower); the EqualityOperator mutants that narrow it are killed
    if ((first >= 48 && first <= 57) || key === "__proto__") return INDEX_KEY;
    const copied = sortedCopy(item, depth + 1);
    // Stryker disable next-line ConditionalExpression: equivalent, giving up on the fast path sends the value to `write`, which gives the same text
    if (copied === INDEX_KEY) return INDEX_KEY;
    copy[key] = copied;
  }
  if (splicedParts !== before) splicing.add(copy);
  return copy;
}

/**
 * An object's keys in code-unit order. Most objects a log writes again (events and messages
 * the schemas gave back, parsed canonical text) already hold them so, and checking the order
 * costs a fifth of sorting it.
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  return inOrder(keys) ? keys : sortKeys(keys);
}

/**
 * Sorts keys in place by code unit, as Array.prototype.sort does with no comparator. An
 * object's few keys are sorted by insertion: V8's sort sets up a TimSort state of about 1.4 KB
 * per call, which for the ~16 small objects of an eval case was 16 KB of garbage per case.
 */
export function sortKeys(keys: string[]): string[] {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, both sorts order by code unit; the length picks the faster
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let at = i - 1;
    while (at >= 0 && (keys[at] as string) > key) {
      keys[at + 1] = keys[at] as string;
      at--;
    }
    keys[at + 1] = key;
  }
  return keys;
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return false;
  return true;
}

function check(value: unknown): void {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new Refusal(`${String(value)} cannot be represented in JSON`);
      return;
    case "bigint":
      throw new Refusal("a BigInt cannot be represented in JSON; convert it to a string or number");
    case "undefined":
      throw new Refusal("undefined cannot be represented in JSON here");
    case "function":
    case "symbol":
      throw new Refusal(`a ${typeof value} cannot be represented in JSON`);
  }
}

function checkPlain(object: object): void {
  const proto = Object.getPrototypeOf(object) as unknown;
  if (proto !== Object.prototype && proto !== null) throw new Refusal(`${describeInstance(proto)} cannot be represented in JSON; convert it to plain data first`);
}

/** "a Date instance", "an Entry instance"; an object whose prototype is no class's is said to be so. */
function describeInstance(proto: unknown): string {
  const constructor = (proto as { constructor?: unknown }).constructor;
  const name = typeof constructor === "function" && constructor.prototype === proto ? constructor.name : "";
  if (!name) return "an object with a custom prototype";
  return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name} instance`;
}

// The general writer, for values with array-index keys and values with long strings: string
// concatenation (V8 ropes, so a long string is spliced in, not copied), and the path is a stack
// that is only formatted when something is refused.
function write(value: unknown, path: (string | number)[], depth: number): string {
  if (typeof value !== "object" || value === null) {
    check(value);
    if (typeof value === "string" && value.length >= SPLICE_LENGTH && !NEEDS_ESCAPE.test(value)) return `"${value}"`;
    return JSON.stringify(value);
  }
  const object = value as object;
  // A depth bound instead of an ancestor set: it costs nothing per node, and only a cycle (or
  // absurd nesting that no log should hold) gets this deep.
  if (depth >= MAX_DEPTH) throw new Refusal(`the value contains a cycle (or nests deeper than ${MAX_DEPTH} levels)`);
  if (isImmutable(object)) {
    const known = knownText(object, path);
    // Placed so deep that its own nesting crosses the bound: the walk below refuses it at the same place.
    if (depth + known.height < MAX_DEPTH) return known.text;
  }
  let out: string;
  if (Array.isArray(object)) {
    out = "[";
    // The length read once, as sortedCopy reads it (an index a getter cut off is a hole).
    const length = object.length;
    for (let i = 0; i < length; i++) {
      path.push(i);
      // A hole or undefined in an array would become null: refuse rather than change the value.
      if (!(i in object)) throw new Refusal("a sparse array hole cannot be represented in JSON");
      out += (i > 0 ? "," : "") + write(object[i], path, depth + 1);
      path.pop();
    }
    out += "]";
  } else {
    checkPlain(object);
    const record = object as Record<string, unknown>;
    const keys = sortedKeys(record);
    out = "{";
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      path.push(key);
      out += (first ? "" : ",") + JSON.stringify(key) + ":" + write(item, path, depth + 1);
      path.pop();
      first = false;
    }
    out += "}";
  }
  return out;
}

/** What is known of an immutable value, made the first time it is written. */
interface Known {
  text: string;
  /** How deep its deepest object or array is below it (0: none is). */
  height: number;
  /** JSON.parse of the text gives back an equal value with the same keys (no undefined property, no -0, no index key). */
  exact: boolean;
  /** Every object in it has its keys in sorted order: JSON.stringify of it gives `text` (when exact). */
  ordered: boolean;
  /**
   * An array's text without its closing bracket: a list grown from this one continues it (a
   * rope, so nothing is copied — slicing the bracket off would copy the whole conversation).
   */
  open?: string;
}

const knownTexts = new WeakMap<object, Known>();

function knownText(value: object, path: (string | number)[]): Known {
  let known = knownTexts.get(value);
  if (known === undefined) {
    known = describe(value, path);
    knownTexts.set(value, known);
  }
  return known;
}

/**
 * The text `write` gives for an immutable value, with its height and exactness. Its parts are
 * immutable too (registration is deep), so each is described once and reused; the walk visits
 * keys in the writer's order, so a refusal names the place the writer would.
 */
function describe(value: object, path: (string | number)[]): Known {
  let height = 0;
  let exact = true;
  let ordered = true;
  const part = (item: unknown): string => {
    if (typeof item === "object" && item !== null) {
      const known = knownText(item, path);
      height = Math.max(height, known.height + 1);
      exact &&= known.exact;
      ordered &&= known.ordered;
      return known.text;
    }
    if (Object.is(item, -0)) exact = false;
    return write(item, path, 0);
  };
  let out: string;
  if (Array.isArray(value)) {
    // JSON.stringify would ask an array of another kind (a subclass's toJSON), or one with a
    // toJSON of its own, how to write it.
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.hasOwn(value, "toJSON")) ordered = false;
    // A list grown from one whose text is known (a conversation one step on) continues that text.
    const earlier = grownFrom(value);
    const known = earlier ? knownTexts.get(earlier) : undefined;
    let from = 0;
    out = "[";
    if (earlier && known?.open !== undefined) {
      from = earlier.length;
      height = known.height;
      exact = known.exact;
      ordered &&= known.ordered;
      out = known.open;
    }
    for (let i = from; i < value.length; i++) {
      path.push(i);
      if (!(i in value)) throw new Refusal("a sparse array hole cannot be represented in JSON");
      out += (i > 0 ? "," : "") + part(value[i]);
      path.pop();
    }
    noteWritten(value);
    return { text: `${out}]`, height, exact, ordered, open: out };
  } else {
    checkPlain(value);
    const record = value as Record<string, unknown>;
    out = "{";
    let first = true;
    const keys = Object.keys(record);
    // An own toJSON (enumerable or not) is what JSON.stringify would write instead of the keys.
    if (Object.hasOwn(record, "toJSON")) ordered = false;
    if (!inOrder(keys)) {
      ordered = false;
      sortKeys(keys);
    }
    for (const key of keys) {
      const item = record[key];
      const code = key.charCodeAt(0);
      if (item === undefined || (code >= 48 && code <= 57) || key === "__proto__") exact = false;
      if (item === undefined) continue;
      path.push(key);
      out += (first ? "" : ",") + JSON.stringify(key) + ":" + part(item);
      path.pop();
      first = false;
    }
    out += "}";
  }
  return { text: out, height, exact, ordered };
}

/** Parses JSON text and re-emits it canonically. */
export function canonicalize(jsonText: string): string {
  return canonicalJson(JSON.parse(jsonText) as unknown);
}

/**
 * Whether `text` is the canonical JSON of `parsed`, where `parsed` is what `JSON.parse(text)`
 * gave: the same answer as `canonicalJson(parsed) === text`, without building a sorted copy.
 * Parsed JSON is plain data (no undefined, NaN, instances or cycles), and JSON.parse keeps keys
 * in the text's order; so when every object's keys already come sorted, the canonical text is
 * JSON.stringify's. Anything else (array-index keys, which engines reorder; absurd nesting) is
 * asked of canonicalJson itself.
 */
export function isCanonicalTextOf(parsed: unknown, text: string): boolean {
  const sorted = keysSorted(parsed, 0);
  if (sorted === undefined) return canonicalJson(parsed) === text;
  return sorted && JSON.stringify(parsed) === text;
}

/** true: every object's keys are in sorted order; false: one is not; undefined: too deep to tell here. */
function keysSorted(value: unknown, depth: number): boolean | undefined {
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const sorted = keysSorted(item, depth + 1);
      if (sorted !== true) return sorted;
    }
    return true;
  }
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return undefined;
    previous = key;
    const sorted = keysSorted((value as Record<string, unknown>)[key], depth + 1);
    if (sorted !== true) return sorted;
  }
  return true;
}
