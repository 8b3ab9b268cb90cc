/**
 * Python values as the official BFCL checker sees them. The checker's verdicts hang on Python
 * semantics that JavaScript values lose: `10` (int) and `10.0` (float) are different types,
 * a bool is not an int for `type(x) == int` yet `True == 1`, a tuple never equals a list, and
 * `1 == 1.0 == True`. So ints are bigints, floats are numbers, and tuples and dicts are classes.
 */
import { QuietError } from "./quiet-error.js";
export type PyValue = string | bigint | number | boolean | null | PyValue[] | PyTuple | PyDict;

export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

type HashKey = string | bigint | number | null;

/** An insertion-ordered dict with Python's key equality (`1`, `1.0` and `True` are one key). */
export class PyDict {
  readonly #entries = new Map<HashKey, [PyValue, PyValue]>();

  static of(entries: Iterable<readonly [PyValue, PyValue]>): PyDict {
    const dict = new PyDict();
    for (const [key, value] of entries) dict.set(key, value);
    return dict;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Like Python: a repeated key keeps its first spelling and position, and takes the new value. */
  set(key: PyValue, value: PyValue): void {
    const hash = hashKey(key);
    const existing = this.#entries.get(hash);
    if (existing) existing[1] = value;
    else this.#entries.set(hash, [key, value]);
  }

  get(key: PyValue): PyValue | undefined {
    return this.#entries.get(hashKey(key))?.[1];
  }

  delete(key: PyValue): void {
    this.#entries.delete(hashKey(key));
  }

  has(key: PyValue): boolean {
    return this.#entries.has(hashKey(key));
  }

  keys(): PyValue[] {
    const keys: PyValue[] = [];
    for (const entry of this.#entries.values()) keys.push(entry[0]);
    return keys;
  }

  values(): PyValue[] {
    const values: PyValue[] = [];
    for (const entry of this.#entries.values()) values.push(entry[1]);
    return values;
  }

  /** The first entry (a decoded call and a ground-truth item each have exactly one). */
  first(): [PyValue, PyValue] | undefined {
    for (const entry of this.#entries.values()) return entry;
    return undefined;
  }

  entries(): IterableIterator<[PyValue, PyValue]> {
    return this.#entries.values();
  }
}

/** Python's TypeError for a list or dict used as a key. */
export class PyTypeError extends QuietError {}

function hashKey(key: PyValue): HashKey {
  if (typeof key === "string" || key === null || typeof key === "bigint") return key;
  if (typeof key === "boolean") return key ? 1n : 0n;
  if (typeof key === "number") return Number.isInteger(key) ? BigInt(key) : key;
  if (key instanceof PyTuple) return `\u0000tuple:${key.items.map((item) => tupleKeyPart(item)).join("\u0000")}`;
  throw new PyTypeError(`unhashable type: '${pyTypeName(key)}'`);
}

function tupleKeyPart(item: PyValue): string {
  const hash = hashKey(item);
  return `${typeof hash}:${String(hash)}`;
}

export type PyTypeName = "str" | "int" | "float" | "bool" | "NoneType" | "list" | "tuple" | "dict";

export function pyTypeName(value: PyValue): PyTypeName {
  switch (typeof value) {
    case "string":
      return "str";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    default:
      if (value === null) return "NoneType";
      if (Array.isArray(value)) return "list";
      return value instanceof PyTuple ? "tuple" : "dict";
  }
}

const isNumeric = (value: PyValue): value is bigint | number | boolean =>
  typeof value === "bigint" || typeof value === "number" || typeof value === "boolean";

/** Python's `==`. */
export function pyEq(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  if (isNumeric(a) && isNumeric(b)) {
    const x = typeof a === "boolean" ? (a ? 1n : 0n) : a;
    const y = typeof b === "boolean" ? (b ? 1n : 0n) : b;
    // Loose equality between a bigint and a number compares their exact values, as Python does.
    return x == y;
  }
  if (Array.isArray(a)) return Array.isArray(b) && sequenceEq(a, b);
  if (a instanceof PyTuple) return b instanceof PyTuple && sequenceEq(a.items, b.items);
  if (a instanceof PyDict) {
    if (!(b instanceof PyDict) || a.size !== b.size) return false;
    for (const [key, value] of a.entries()) {
      const other = b.get(key);
      if (other === undefined || !pyEq(value, other)) return false;
    }
    return true;
  }
  return false;
}

function sequenceEq(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!pyEq(a[i] as PyValue, b[i] as PyValue)) return false;
  return true;
}

/** Python's `value in options` for a list. */
export function pyIn(value: PyValue, options: readonly PyValue[]): boolean {
  for (const option of options) if (pyEq(value, option)) return true;
  return false;
}

/** Python's `repr`, for error messages and for `ast.unparse` of constants. */
export function pyRepr(value: PyValue): string {
  switch (typeof value) {
    case "string":
      return pyStringRepr(value);
    case "bigint":
      return value.toString();
    case "number":
      return pyFloatRepr(value);
    case "boolean":
      return value ? "True" : "False";
    default:
      if (value === null) return "None";
      if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
      if (value instanceof PyTuple) {
        return value.items.length === 1 ? `(${pyRepr(value.items[0] as PyValue)},)` : `(${value.items.map(pyRepr).join(", ")})`;
      }
      return `{${[...value.entries()].map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
}

/** `repr(float)`: the shortest round-trip digits (as JavaScript finds them) in Python's layout. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const sign = value < 0 ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const whole = digits.padEnd(exponent + 1, "0");
    const integer = whole.slice(0, exponent + 1);
    const fraction = whole.slice(exponent + 1);
    return `${sign}${integer}.${fraction || "0"}`;
  }
  const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const magnitude = String(Math.abs(exponent)).padStart(2, "0");
  return `${sign}${body}e${exponent < 0 ? "-" : "+"}${magnitude}`;
}

export function pyStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += char;
  }
  return out + quote;
}
