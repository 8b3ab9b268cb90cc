/** Values shaped by a zod schema, valid or nearly so: for the checks that stand in for zod. */
import fc from "fast-check";
import type { z } from "zod";

export interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; minimum?: number; value?: number; inclusive?: boolean; format?: string } } }[];
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, unknown>;
}

export const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Anything at all, with the keys that trip object code up. */
export const wild = fc.anything({
  key: fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("__proto__", "constructor", "toString", "0")),
  maxDepth: 2,
  withNullPrototype: true,
  withBoxedValues: true,
  withSparseArray: true,
  withBigInt: true,
  withDate: true,
  withMap: true,
});

export const awkwardLeaf = fc.constantFrom<unknown>(undefined, null, NaN, Infinity, -Infinity, -0, 0, 1.5, -1, 2 ** 53, "", "x", true, [], {});

/**
 * Values shaped by the schema: valid ones when `chaos` is 0; with `chaos`, any part may be
 * something else, an object may lose a field or gain one, so that every way to be nearly
 * valid is tried.
 */
export function valuesOf(schema: z.ZodType, chaos: number): fc.Arbitrary<unknown> {
  const shaped = shapedBy(defOf(schema), chaos);
  if (chaos === 0) return shaped;
  return fc.oneof({ weight: 20, arbitrary: shaped }, { weight: chaos, arbitrary: fc.oneof(awkwardLeaf, wild) });
}

function shapedBy(def: Def, chaos: number): fc.Arbitrary<unknown> {
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  switch (def.type) {
    case "string": {
      const min = checks.find((check) => check.check === "min_length")?.minimum ?? 0;
      return fc.string({ minLength: min, maxLength: min + 6 });
    }
    case "number": {
      const int = checks.some((check) => check.format === "safeint");
      const bound = checks.find((check) => check.check === "greater_than");
      const min = bound ? (bound.inclusive ? 0 : int ? 1 : 0.5) : -1000;
      return int ? fc.integer({ min, max: 100_000 }) : fc.double({ min, max: 1e6, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "literal":
      return fc.constantFrom(...(def.values ?? []));
    case "enum":
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case "unknown":
      return fc.jsonValue({ maxDepth: 2 });
    case "optional":
      return fc.option(valuesOf(def.innerType as z.ZodType, chaos), { nil: undefined });
    case "nullable":
      return fc.option(valuesOf(def.innerType as z.ZodType, chaos), { nil: null });
    case "array":
      return fc.array(valuesOf(def.element as z.ZodType, chaos), { maxLength: 3 });
    case "record":
      return fc.dictionary(fc.string({ maxLength: 4 }), valuesOf(def.valueType as z.ZodType, chaos), { maxKeys: 3, noNullPrototype: !chaos });
    case "union":
      return fc.oneof(...(def.options ?? []).map((option) => valuesOf(option, chaos)));
    case "object": {
      const fields = Object.entries(def.shape ?? {}).map(([key, field]) => fc.tuple(fc.constant(key), valuesOf(field, chaos), fc.integer({ min: 0, max: 40 })));
      const extra = fc.array(fc.tuple(fc.constantFrom("extra", "__proto__", "constructor", "type", "7"), fc.oneof(awkwardLeaf, wild)), { maxLength: chaos ? 2 : 0 });
      return fc.tuple(fc.tuple(...fields), extra).map(([entries, extras]) => {
        const object: Record<string, unknown> = {};
        const define = (key: string, value: unknown) => Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
        for (const [key, value, roll] of entries) {
          // With chaos, a field is sometimes dropped, or kept with an undefined value.
          if (chaos && roll === 0) continue;
          if (value === undefined && !(chaos && roll === 1)) continue;
          define(key, value);
        }
        for (const [key, value] of extras) define(key, value);
        return object;
      });
    }
    default:
      throw new Error(`no generator for a ${def.type} schema`);
  }
}

