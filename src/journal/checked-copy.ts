/**
 * The check of a whole event in one walk: the canonical copy (canonicalCopy) and the schema's
 * verdict on it (acceptedAsIs) made together, guided by the schema. Each field the schema names
 * is read once, by its key, in sorted order, and its test is asked of the copied value; a part
 * the schema leaves open (`unknown`) is copied by canonical JSON's own walk. Two walks of the
 * event — one generic over every key, one over the copy — cost the log more than writing it.
 *
 * It decides nothing: it gives the copy only when both steps it replaces would have given that
 * copy and said yes, and NOT_PLAIN for anything else (a part registered immutable, a long
 * string, a key the schema does not know, an undefined field, something refused), which the
 * two steps then judge as before and, for a refusal, name the place.
 */
import { isImmutable, LONGEST_PLAIN_STRING, NOT_PLAIN, orderedTwin, plainCopyAt, sortKeys } from "../canonical/index.js";
import { asIsCheck, EMPTY, inlineTest, keyScan, knownKeys, schemaDefinition, type Check } from "../contracts/as-is.js";
import type { z } from "zod";

/** Copies a part found `depth` levels down, or says NOT_PLAIN. */
export type CheckedCopy = (value: unknown, depth: number) => unknown;

const made = new WeakMap<object, CheckedCopy | null>();

/** The checked copier of a schema, built once; undefined where the schema has a part it cannot copy so. */
export function checkedCopier(schema: z.ZodType): CheckedCopy | undefined {
  let copier = made.get(schema);
  if (copier === undefined) {
    copier = build(schema) ?? null;
    made.set(schema, copier);
  }
  return copier ?? undefined;
}

function build(schema: z.ZodType): CheckedCopy | undefined {
  const check = asIsCheck(schema);
  if (check === undefined) return undefined;
  const def = schemaDefinition(schema);
  switch (def.type) {
    case "string":
    case "number":
    case "boolean":
    case "literal":
    case "enum":
      return primitive(check);
    case "unknown":
      // Anything but undefined: canonical JSON's walk copies it.
      return (value, depth) => (value === undefined ? NOT_PLAIN : plainCopyAt(value, depth));
    case "optional":
    case "nullable": {
      if ((def.checks?.length ?? 0) > 0 || !def.innerType) return undefined;
      const inner = checkedCopier(def.innerType);
      if (!inner) return undefined;
      const empty = def.type === "optional" ? undefined : null;
      return (value, depth) => (value === empty ? value : inner(value, depth));
    }
    case "array":
      return (def.checks?.length ?? 0) > 0 || !def.element ? undefined : array(def.element, sharedAs(check));
    case "object":
      return (def.checks?.length ?? 0) > 0 ? undefined : object(def.shape ?? {}, sharedAs(check));
    case "record":
      return (def.checks?.length ?? 0) > 0 || !def.valueType ? undefined : record(def.valueType, sharedAs(check));
    case "union":
      return (def.checks?.length ?? 0) > 0 ? undefined : union(def);
    default:
      return undefined;
  }
}

/** A leaf: copied as canonical JSON copies it (-0 as 0), then tested as acceptedAsIs tests it. */
function primitive(check: Check): CheckedCopy {
  return (value) => {
    if (typeof value === "string") return value.length <= LONGEST_PLAIN_STRING && check(value) ? value : NOT_PLAIN;
    if (typeof value === "number") {
      const copy = value === 0 ? 0 : value;
      return check(copy) ? copy : NOT_PLAIN;
    }
    return typeof value === "boolean" && check(value) ? value : NOT_PLAIN;
  };
}

/** A plain container (not immutable: asked before): what the copy walk copies rather than refuses. */
function copiable(value: unknown, prototype: object): value is object {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === prototype;
}

/**
 * A part registered immutable is shared, as the copy walk shares it: as its ordered twin when its
 * keys are out of order (see orderedTwin), checked by the schema; a long one is the walk's.
 */
function sharedAs(check: Check): CheckedCopy {
  return (value, depth) => {
    const twin = orderedTwin(value as object, depth);
    return twin !== NOT_PLAIN && check(twin) ? twin : NOT_PLAIN;
  };
}

function array(element: z.ZodType, shared: CheckedCopy): CheckedCopy | undefined {
  const item = checkedCopier(element);
  if (!item) return undefined;
  return (value, depth) => {
    if (isImmutable(value)) return shared(value, depth);
    if (!Array.isArray(value) || !copiable(value, Array.prototype)) return NOT_PLAIN;
    const list = value as unknown[];
    // The length read once, as sortedCopy reads it: an index a getter cut off is a hole.
    const length = list.length;
    const copy: unknown[] = new Array(length);
    for (let index = 0; index < length; index++) {
      if (!(index in list)) return NOT_PLAIN;
      const part = list[index];
      if (part === undefined) return NOT_PLAIN;
      const copied = item(part, depth + 1);
      if (copied === NOT_PLAIN) return NOT_PLAIN;
      copy[index] = copied;
    }
    return copy;
  };
}

function object(shape: Record<string, z.ZodType>, shared: CheckedCopy): CheckedCopy | undefined {
  // Sorted once here: the copy gets its keys in canonical order by being built in it.
  const keys = sortKeys(Object.keys(shape));
  // A key a plain object cannot hold in order (an index, "__proto__") is the copy walk's to handle.
  if (keys.some((key) => /^[0-9]/.test(key) || key === "__proto__")) return undefined;
  const fields: CheckedCopy[] = [];
  const absentOk: boolean[] = [];
  const inline: (string | undefined)[] = [];
  for (const key of keys) {
    const schema = shape[key] as z.ZodType;
    const field = checkedCopier(schema);
    const check = asIsCheck(schema);
    if (!field || !check) return undefined;
    fields.push(field);
    absentOk.push(check(undefined));
    inline.push(inlineCopy(schema));
  }
  return generated(keys, fields, absentOk, inline, shared) ?? closureObject(keys, fields, absentOk, shared);
}

/**
 * A leaf's copy as a statement on `item` that sets `copied` or returns NOT_PLAIN, for the
 * leaves acceptedAsIs tests inline (see inlineTest); undefined for any other.
 */
function inlineCopy(schema: z.ZodType): string | undefined {
  const test = inlineTest(schema);
  if (test === undefined) return undefined;
  const type = schemaDefinition(schema).type;
  const inner = type === "optional" ? schemaDefinition(schemaDefinition(schema).innerType as z.ZodType).type : type;
  if (inner === "string" || inner === "literal") return `if (!(${test}) || item.length > LONGEST) return NOT_PLAIN; copied = item;`;
  if (inner === "number") return `if (!(${test})) return NOT_PLAIN; copied = item === 0 ? 0 : item;`;
  if (inner === "boolean") return `if (!(${test})) return NOT_PLAIN; copied = item;`;
  return undefined;
}

/** The object copier as straight-line code (see acceptedAsIs's object checker); undefined where code cannot be generated. */
function generated(keys: readonly string[], fields: readonly CheckedCopy[], absentOk: readonly boolean[], inline: readonly (string | undefined)[], shared: CheckedCopy): CheckedCopy | undefined {
  let body = "if (typeof value !== 'object' || value === null) return NOT_PLAIN;\nif (isImmutable(value)) return shared(value, depth);\nif (Object.getPrototypeOf(value) !== Object.prototype) return NOT_PLAIN;\n";
  // Before any value is read, as acceptedAsIs's checker does (see keyScan): which known keys
  // JSON writes, and no other. A walk that gives up here has read nothing, so the two steps
  // that judge the event then see it as it was.
  body += `${keyScan(keys, "return NOT_PLAIN;")}\n`;
  keys.forEach((_, index) => {
    if (!absentOk[index]) body += `if (!has${index}) return NOT_PLAIN;\n`;
  });
  body += "const copy = {};\nlet item;\nlet copied;\n";
  keys.forEach((key, index) => {
    const name = JSON.stringify(key);
    const copy = inline[index] ?? `copied = fields[${index}](item, depth + 1); if (copied === NOT_PLAIN) return NOT_PLAIN;`;
    body += `if (has${index}) { item = value[${name}]; if (item === undefined) return NOT_PLAIN; ${copy} copy[${name}] = copied; }\n`;
  });
  body += "return copy;";
  try {
    const make = new Function("fields", "EMPTY", "isImmutable", "shared", "NOT_PLAIN", "LONGEST", `return function copyChecked(value, depth) {\n${body}\n};`) as (
      fields: readonly CheckedCopy[],
      empty: object,
      immutable: typeof isImmutable,
      shared: CheckedCopy,
      notPlain: typeof NOT_PLAIN,
      longest: number,
    ) => CheckedCopy;
    return make(fields, EMPTY, isImmutable, shared, NOT_PLAIN, LONGEST_PLAIN_STRING);
  } catch {
    // Code generation is off (node --disallow-code-generation-from-strings).
    return undefined;
  }
}

function closureObject(keys: readonly string[], fields: readonly CheckedCopy[], absentOk: readonly boolean[], shared: CheckedCopy): CheckedCopy {
  const known = new Set(keys);
  return (value, depth) => {
    if (isImmutable(value)) return shared(value, depth);
    if (!copiable(value, Object.prototype)) return NOT_PLAIN;
    const record = value as Record<string, unknown>;
    // As the generated copier: the keys JSON writes found before any value is read.
    const present = knownKeys(record, known);
    if (present === undefined || keys.some((key, index) => !present.has(key) && !absentOk[index])) return NOT_PLAIN;
    const copy: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (!present.has(key)) continue;
      const item = record[key];
      if (item === undefined) return NOT_PLAIN;
      const copied = (fields[index] as CheckedCopy)(item, depth + 1);
      if (copied === NOT_PLAIN) return NOT_PLAIN;
      copy[key] = copied;
    }
    return copy;
  };
}

function record(valueType: z.ZodType, shared: CheckedCopy): CheckedCopy | undefined {
  const entry = checkedCopier(valueType);
  if (!entry) return undefined;
  return (value, depth) => {
    if (isImmutable(value)) return shared(value, depth);
    if (!copiable(value, Object.prototype)) return NOT_PLAIN;
    const source = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const key of sortKeys(Object.keys(source))) {
      const first = key.charCodeAt(0);
      if ((first >= 48 && first <= 57) || key === "__proto__") return NOT_PLAIN;
      const item = source[key];
      if (item === undefined) return NOT_PLAIN;
      const copied = entry(item, depth + 1);
      if (copied === NOT_PLAIN) return NOT_PLAIN;
      copy[key] = copied;
    }
    return copy;
  };
}

function union(def: ReturnType<typeof schemaDefinition>): CheckedCopy | undefined {
  const options = def.options ?? [];
  if (def.discriminator === undefined) {
    // acceptedAsIs vouches only through a plain union's first option.
    const first = options[0] && checkedCopier(options[0]);
    return first ?? undefined;
  }
  const discriminator = def.discriminator;
  const byTag = new Map<unknown, CheckedCopy>();
  for (const option of options) {
    const copier = checkedCopier(option);
    const tag = schemaDefinition(option).shape?.[discriminator];
    if (!copier || !tag) return undefined;
    for (const value of schemaDefinition(tag).values ?? []) byTag.set(value, copier);
  }
  return (value, depth) => {
    if (typeof value !== "object" || value === null) return NOT_PLAIN;
    const option = byTag.get((value as Record<string, unknown>)[discriminator]);
    return option === undefined ? NOT_PLAIN : option(value, depth);
  };
}
