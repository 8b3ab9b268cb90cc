/**
 * A quicker answer to one question the log asks of every event it writes: would the schema
 * accept this value and give back an equal one? The writer validates a fresh canonical copy of
 * each event, and zod, to say yes, builds a second copy and a result object for every part of
 * it. When the answer is yes, the copy itself is what zod would give back; the checker below
 * says so without building anything, and only a value it cannot vouch for goes to zod, which
 * then decides, and names the problem.
 *
 * It is compiled once per schema from zod's own definition, for the kinds of schema the
 * contracts use (objects that strip unknown keys, strings, numbers, booleans, literals, enums,
 * arrays, records, optional, nullable, unions, unknown, custom) and the checks they use
 * (lengths, integer, bounds). A schema with anything else (a default, a transform, a pipe, a
 * refinement, a check it does not know) gets no checker: zod alone checks it. It says yes only
 * where zod's output is the input again, so a key the schema does not know (which zod drops)
 * or a part zod would replace is a no, and zod has the last word.
 */
import type { z } from "zod";

export type Check = (value: unknown) => boolean;

export interface Definition {
  type: string;
  /** Set on a schema that is itself a check (z.int(), z.email()): its test is not in `checks`. */
  check?: string;
  checks?: readonly { _zod: { def: CheckDefinition } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: readonly z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  fn?: (value: unknown) => unknown;
  coerce?: boolean;
  discriminator?: string;
  inclusive?: boolean;
}

interface CheckDefinition {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  when?: (payload: { value: unknown; issues: unknown[] }) => unknown;
  abort?: unknown;
}

const NO_ISSUES: unknown[] = Object.freeze([]) as unknown as unknown[];

const compiled = new WeakMap<object, Check | null>();

/**
 * Whether `schema` would accept `value` and give back a value equal to it (the same keys, the
 * same parts). False means only "ask zod": the value may still be valid. For data as
 * `JSON.parse` or a canonical copy makes it, the only values the log asks about: an array's
 * other properties (not its items), symbol keys and keys that are not enumerable, which neither
 * can hold, are not looked at (asking for them was a third of the checker's time).
 */
export function acceptedAsIs(schema: z.ZodType, value: unknown): boolean {
  const check = asIsCheck(schema);
  return check !== undefined && check(value);
}

/** acceptedAsIs for one schema, as a function (built once); undefined for a schema only zod can judge. */
export function asIsCheck(schema: z.ZodType): Check | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}

/** zod's definition of a schema: what a compiler of it (this one, the journal's copier) reads. */
export function schemaDefinition(schema: z.ZodType): Readonly<Definition> {
  return defOf(schema);
}

/** The checker of one schema, or undefined when some part of it is not one this module knows. */
function compile(schema: z.ZodType): Check | undefined {
  const def = defOf(schema);
  // A schema that is a check itself (z.int(), z.email(), z.iso.datetime()) holds its test
  // outside `checks`: zod's alone. A custom schema is the one kind read below.
  if (def.check !== undefined && def.type !== "custom") return undefined;
  const own = checksOf(def);
  if (own === undefined) return undefined;
  const base = compileType(def);
  if (base === undefined) return undefined;
  if (own.length === 0) return base;
  if (own.length === 1) {
    const only = own[0] as Check;
    return (value) => base(value) && only(value);
  }
  return (value) => {
    if (!base(value)) return false;
    for (const check of own) if (!check(value)) return false;
    return true;
  };
}

function compileType(def: Definition): Check | undefined {
  switch (def.type) {
    case "string":
      return def.coerce ? undefined : (value) => typeof value === "string";
    case "number":
      return def.coerce ? undefined : (value) => typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return def.coerce ? undefined : (value) => typeof value === "boolean";
    case "unknown":
      // A key that is absent is zod's to judge (whether it counts as optional).
      return (value) => value !== undefined;
    case "literal": {
      const values = def.values ?? [];
      return (value) => value !== undefined && values.includes(value);
    }
    case "enum": {
      const values = Object.values(def.entries ?? {});
      // A TypeScript numeric enum's entries hold reverse mappings (name by value) that zod leaves out: zod's.
      if (values.some((value) => typeof value !== "string")) return undefined;
      return (value) => typeof value === "string" && values.includes(value);
    }
    case "optional":
      return wrap(def.innerType, (inner) => (value) => value === undefined || inner(value));
    case "nullable":
      return wrap(def.innerType, (inner) => (value) => value === null || inner(value));
    case "array":
      return wrap(def.element, (element) => (value) => {
        if (!isPlainArray(value)) return false;
        // By index: `every` would skip a hole, which zod reads as undefined.
        for (let index = 0; index < value.length; index++) {
          const item: unknown = value[index];
          if (item === undefined || !element(item)) return false;
        }
        return true;
      });
    case "object":
      return compileObject(def);
    case "record":
      return compileRecord(def);
    case "union": {
      const options = (def.options ?? []).map(compile);
      if (options.length === 0 || options.some((option) => option === undefined)) return undefined;
      const checks = options as Check[];
      // A discriminated union tries only the option its discriminator names, and an option
      // accepts only its own discriminator: the one that accepts is the one zod would use. A
      // plain union takes the first option that accepts, perhaps by dropping keys: only the
      // first can be vouched for.
      if (def.discriminator !== undefined) return taggedChecker(def.discriminator, def.options ?? [], checks);
      // An exclusive union (z.xor) refuses a value two options accept: zod's to judge.
      if (def.inclusive === false) return undefined;
      return checks[0] as Check;
    }
    case "custom": {
      const fn = def.fn;
      if (!fn) return undefined;
      // zod passes a custom check when its function returns truthy (a promise is for async parsing).
      return (value) => {
        const result = fn(value);
        return Boolean(result) && !(result instanceof Promise);
      };
    }
    default:
      return undefined;
  }
}

function defOf(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

/**
 * Every option of a discriminated union requires its discriminator, a literal of values no
 * other option has: then the one option that can accept a value is the one zod's lookup picks.
 * An optional or shared discriminator makes zod's choice its own (it may refuse as ambiguous):
 * no checker.
 */
function taggedChecker(discriminator: string, options: readonly z.ZodType[], checks: readonly Check[]): Check | undefined {
  const byTag = new Map<unknown, Check>();
  for (const [index, option] of options.entries()) {
    const def = defOf(option);
    const tag = def.type === "object" ? def.shape?.[discriminator] : undefined;
    const tagDef = tag && defOf(tag);
    if (!tagDef || tagDef.type !== "literal") return undefined;
    for (const value of tagDef.values ?? []) {
      if (byTag.has(value)) return undefined;
      byTag.set(value, checks[index] as Check);
    }
  }
  // Only the option the tag names can accept (each requires its own tag): it alone is asked.
  return (value) => {
    if (typeof value !== "object" || value === null) return false;
    const option = byTag.get((value as Record<string, unknown>)[discriminator]);
    return option !== undefined && option(value);
  };
}

function wrap(inner: z.ZodType | undefined, make: (inner: Check) => Check): Check | undefined {
  const check = inner && compile(inner);
  return check ? make(check) : undefined;
}

/** A plain object: zod gives back a plain object for anything else it accepts as one (a null prototype, a class). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A plain array: zod gives back a plain one for a subclass too. */
function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

function compileObject(def: Definition): Check | undefined {
  if (def.catchall !== undefined) return undefined;
  const keys: string[] = [];
  const checks: Check[] = [];
  const inline: (string | undefined)[] = [];
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const check = compile(field);
    if (!check) return undefined;
    keys.push(key);
    checks.push(check);
    inline.push(inlineTest(field));
  }
  return objectChecker(keys, checks, inline);
}

/** An object nothing can add to: a for-in over it finds only what Object.prototype holds (the name keyScan's code reads it by). */
export const EMPTY: object = Object.freeze({});

/**
 * The object checker as straight-line code, generated once per object schema (as zod compiles
 * its own objects): each field read by a constant key, and a simple field's test written in
 * place instead of called. The closures it replaced cost half the log's schema time in calls
 * and indexed reads. Keys enter the code only as JSON string literals.
 */
function objectChecker(keys: readonly string[], checks: readonly Check[], inline: readonly (string | undefined)[]): Check {
  let body = "if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;\n";
  body += `${keyScan(keys, "return false;")}\nlet item;\n`;
  keys.forEach((key, index) => {
    const name = JSON.stringify(key);
    const test = inline[index] ?? `checks[${index}](item)`;
    // Absent or undefined: only an optional field passes (zod drops neither kind of key the same way).
    body += `if (has${index}) { item = value[${name}]; if (item === undefined || !(${test})) return false; } else if (!checks[${index}](undefined)) return false;\n`;
  });
  body += "return true;";
  try {
    const make = new Function("checks", "EMPTY", `return function check(value) {\n${body}\n};`) as (checks: readonly Check[], empty: object) => Check;
    return make(checks, EMPTY);
  } catch {
    // Code generation is off (node --disallow-code-generation-from-strings): the same test, by closures.
    return closureObjectChecker(keys, checks);
  }
}

/**
 * The start of a generated object test, before it reads any value: which keys of `keys` the
 * object has, as `has0`, `has1`, … — the keys JSON writes (own and enumerable: `hasOwn` would
 * also see a hidden one, which no text holds) — with `bail` for a key the schema does not know
 * (zod would drop it). Reading no value first, no getter can change what was found. A for-in
 * also lists Object.prototype's enumerable keys (a polluted one), so with any there, `bail`.
 */
export function keyScan(keys: readonly string[], bail: string): string {
  const flags = keys.map((_, index) => `has${index} = false`).join(", ");
  const cases = keys.map((key, index) => `case ${JSON.stringify(key)}: has${index} = true; break;`).join(" ");
  return `for (const _key in EMPTY) ${bail}\n${flags ? `let ${flags};\n` : ""}for (const key in value) { switch (key) { ${cases} default: ${bail} } }`;
}

/** The keys JSON writes of `value`, when each is one of `keys`; undefined when one is not (the closures' keyScan). */
export function knownKeys(value: object, keys: ReadonlySet<string>): Set<string> | undefined {
  const own = Object.keys(value);
  for (const key of own) if (!keys.has(key)) return undefined;
  return new Set(own);
}

function closureObjectChecker(keys: readonly string[], checks: readonly Check[]): Check {
  const known = new Set(keys);
  return (value) => {
    if (!isPlainRecord(value)) return false;
    const present = knownKeys(value, known);
    if (present === undefined) return false;
    for (let index = 0; index < keys.length; index++) {
      const has = present.has(keys[index] as string);
      const item = has ? value[keys[index] as string] : undefined;
      if (has && item === undefined) return false;
      if (!(checks[index] as Check)(item)) return false;
    }
    return true;
  };
}

/**
 * A present value's test as an expression of `item`, for the schemas whose test is a type and
 * nothing else; undefined for every other (its checker is called). It must say what the
 * compiled checker says of any value but undefined.
 */
export function inlineTest(schema: z.ZodType): string | undefined {
  const def = defOf(schema);
  if (def.check !== undefined || def.coerce) return undefined;
  const checks: string[] = [];
  for (const entry of def.checks ?? []) {
    const check = inlineCheck(entry._zod.def);
    if (check === undefined) return undefined;
    checks.push(check);
  }
  if (checks.length > 0 && def.type !== "number") return undefined;
  switch (def.type) {
    case "string":
      return "typeof item === 'string'";
    case "number":
      return `(typeof item === 'number' && Number.isFinite(item)${checks.map((check) => ` && ${check}`).join("")})`;
    case "boolean":
      return "typeof item === 'boolean'";
    case "literal": {
      const values = def.values ?? [];
      if (values.length !== 1 || typeof values[0] !== "string") return undefined;
      return `item === ${JSON.stringify(values[0])}`;
    }
    case "optional": {
      // A present value (not undefined) passes an optional schema when it passes the inner one.
      return def.innerType ? inlineTest(def.innerType) : undefined;
    }
    default:
      return undefined;
  }
}

/** A number's check as an expression of `item` (a finite number), as compileKnownCheck tests it; undefined for any other. */
function inlineCheck(def: CheckDefinition): string | undefined {
  if (def.when !== undefined) return undefined;
  const bound = def.value;
  switch (def.check) {
    case "number_format":
      return def.format === "safeint" ? "Number.isSafeInteger(item)" : undefined;
    case "greater_than":
      return typeof bound === "number" && Number.isFinite(bound) ? `item ${def.inclusive ? ">=" : ">"} ${String(bound)}` : undefined;
    case "less_than":
      return typeof bound === "number" && Number.isFinite(bound) ? `item ${def.inclusive ? "<=" : "<"} ${String(bound)}` : undefined;
    default:
      return undefined;
  }
}

function compileRecord(def: Definition): Check | undefined {
  const keyDef = def.keyType && defOf(def.keyType);
  // Keys that are plain strings only; a key schema with checks, an enum or a literal is zod's.
  if (!keyDef || keyDef.type !== "string" || (keyDef.checks?.length ?? 0) > 0) return undefined;
  const item = def.valueType && compile(def.valueType);
  if (!item) return undefined;
  return (value) => {
    if (!isPlainRecord(value)) return false;
    for (const key of Object.keys(value)) {
      // zod builds its output by assignment: "__proto__" would become the output's prototype.
      if (key === "__proto__") return false;
      const entry = value[key];
      if (entry === undefined || !item(entry)) return false;
    }
    return true;
  };
}

/** The checks on a schema, each as a test; undefined when one is not known here. */
function checksOf(def: Definition): Check[] | undefined {
  const checks: Check[] = [];
  for (const entry of def.checks ?? []) {
    const check = compileCheck(entry._zod.def);
    if (!check) return undefined;
    checks.push(check);
  }
  return checks;
}

function compileCheck(def: CheckDefinition): Check | undefined {
  const check = compileKnownCheck(def);
  const when = def.when;
  if (!check || when === undefined) return check;
  if (typeof when !== "function") return undefined;
  // A check that runs only when its condition holds (zod gives length checks one: the value has
  // a length), asked as zod asks it, of a value with no issue so far. The question is asked in
  // one reused payload: a condition only reads it, and an object per string checked is garbage
  // the writer need not make.
  const payload: { value: unknown; issues: unknown[] } = { value: undefined, issues: NO_ISSUES };
  return (value) => {
    payload.value = value;
    const applies = when(payload);
    payload.value = undefined;
    return !applies || check(value);
  };
}

function compileKnownCheck(def: CheckDefinition): Check | undefined {
  switch (def.check) {
    case "min_length": {
      const minimum = def.minimum;
      // A string's length is counted in code points (what zod counts; never more than its UTF-16
      // units, so a string long enough in code points is long enough either way).
      return typeof minimum === "number" ? (value) => (typeof value === "string" ? codePointsAtLeast(value, minimum) : (value as { length: number }).length >= minimum) : undefined;
    }
    case "max_length": {
      const maximum = def.maximum;
      // In UTF-16 units: never fewer than code points, so a string short enough in units is short enough either way.
      return typeof maximum === "number" ? (value) => (value as { length: number }).length <= maximum : undefined;
    }
    case "greater_than": {
      const bound = def.value;
      if (typeof bound !== "number") return undefined;
      return def.inclusive ? (value) => (value as number) >= bound : (value) => (value as number) > bound;
    }
    case "less_than": {
      const bound = def.value;
      if (typeof bound !== "number") return undefined;
      return def.inclusive ? (value) => (value as number) <= bound : (value) => (value as number) < bound;
    }
    case "number_format":
      return def.format === "safeint" ? (value) => Number.isSafeInteger(value) : undefined;
    default:
      return undefined;
  }
}

/** Whether `text` holds at least `minimum` code points; counted only when its units leave it in doubt. */
function codePointsAtLeast(text: string, minimum: number): boolean {
  if (text.length < minimum) return false;
  if (text.length >= minimum * 2) return true;
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    if (++count >= minimum) return true;
  }
  return count >= minimum;
}
