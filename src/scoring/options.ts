/**
 * Checking the options an assertion or a matcher was given against the ones it declares: an
 * unknown key, or a value its schema refuses, is a problem with a suggestion, never ignored.
 */
import { z, type ZodType } from "zod";
import type { OptionShape } from "../contracts/index.js";
import { nearest } from "../text/index.js";

const cache = new WeakMap<object, WeakMap<object, ZodType>>();

/**
 * The schema of `shape` plus `extra`, built (and compiled by zod, which costs far more than a
 * parse) once per pair: an assertion is checked on every call, thousands of times a suite.
 */
function schemaOf(shape: Record<string, ZodType>, extra: Record<string, ZodType>, all: Record<string, ZodType>): ZodType {
  let byExtra = cache.get(shape);
  if (!byExtra) cache.set(shape, (byExtra = new WeakMap()));
  let schema = byExtra.get(extra);
  if (!schema) {
    // Every option may be left out; a value given must fit.
    schema = z.strictObject(Object.fromEntries(Object.entries(all).map(([key, type]) => [key, type.optional()])));
    byExtra.set(extra, schema);
  }
  return schema;
}

const NO_EXTRA: Record<string, ZodType> = {};

/** The first problem with `options` against `shape` (plus `extra`, e.g. severity and label), or undefined. */
export function optionsProblem(options: unknown, shape: OptionShape<object> | Record<string, ZodType>, extra: Record<string, ZodType> = NO_EXTRA): string | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object" || Array.isArray(options)) return `options must be an object, got ${JSON.stringify(options) ?? String(options)}`;
  const given = Object.keys(options);
  // Every option may be left out: no options, no problem (the common call, checked on every call).
  if (given.length === 0) return undefined;
  const all = { ...(shape as Record<string, ZodType>), ...extra };
  const keys = Object.keys(all);
  for (const key of given) {
    if (Object.hasOwn(all, key)) continue;
    const suggestion = nearest(key, keys);
    return `unknown option "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; it accepts ${keys.length ? keys.join(", ") : "no options"}`;
  }
  const result = schemaOf(shape as Record<string, ZodType>, extra, all).safeParse(options);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return "invalid options";
  const key = issue.path.map(String).join(".");
  const offered = key ? (options as Record<string, unknown>)[issue.path[0] as string] : options;
  const values = issue.code === "invalid_value" ? issue.values.filter((value): value is string => typeof value === "string") : [];
  const suggestion = typeof offered === "string" && values.length ? nearest(offered, values) : undefined;
  const expected = values.length ? `expected ${values.map((value) => JSON.stringify(value)).join(" or ")}` : issue.message;
  return `option ${key || "(root)"}: ${expected}, got ${JSON.stringify(offered) ?? String(offered)}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`;
}
