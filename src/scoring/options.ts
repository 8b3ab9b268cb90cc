/**
 * Checking the options an assertion or a matcher was given against the ones it declares: an
 * unknown key, or a value its schema refuses, is a problem with a suggestion, never ignored.
 */
import { z, type ZodType } from "zod";
import type { OptionShape } from "../contracts/index.js";
import { nearest } from "../text/index.js";

const cache = new WeakMap<object, ZodType>();

function schemaOf(shape: Record<string, ZodType>): ZodType {
  let schema = cache.get(shape);
  if (!schema) {
    // Every option may be left out; a value given must fit.
    schema = z.strictObject(Object.fromEntries(Object.entries(shape).map(([key, type]) => [key, type.optional()])));
    cache.set(shape, schema);
  }
  return schema;
}

/** The first problem with `options` against `shape` (plus `extra`, e.g. severity and label), or undefined. */
export function optionsProblem(options: unknown, shape: OptionShape<object> | Record<string, ZodType>, extra: Record<string, ZodType> = {}): string | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object" || Array.isArray(options)) return `options must be an object, got ${JSON.stringify(options) ?? String(options)}`;
  const all = { ...(shape as Record<string, ZodType>), ...extra };
  const keys = Object.keys(all);
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(all, key)) continue;
    const suggestion = nearest(key, keys);
    return `unknown option "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; it accepts ${keys.length ? keys.join(", ") : "no options"}`;
  }
  const result = schemaOf(all).safeParse(options);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return "invalid options";
  const key = issue.path.map(String).join(".");
  const given = key ? (options as Record<string, unknown>)[issue.path[0] as string] : options;
  const values = issue.code === "invalid_value" ? issue.values.filter((value): value is string => typeof value === "string") : [];
  const suggestion = typeof given === "string" && values.length ? nearest(given, values) : undefined;
  const expected = values.length ? `expected ${values.map((value) => JSON.stringify(value)).join(" or ")}` : issue.message;
  return `option ${key || "(root)"}: ${expected}, got ${JSON.stringify(given) ?? String(given)}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`;
}
