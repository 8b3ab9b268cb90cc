/**
 * `json-schema`: the value (or the JSON the text holds) is valid against a JSON Schema, or a zod
 * schema. JSON Schemas are turned into zod with z.fromJSONSchema, so there is one validator.
 */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe } from "./support.js";

export interface JsonSchemaOptions {
  /** Text values are parsed as JSON first (a ```json fence around it is allowed). Default true. */
  parse?: boolean;
}

const converted = new WeakMap<object, Validator>();

interface Validator {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** A zod schema from any copy of zod (the eval file's own, say) is used as is; a JSON Schema is converted once. */
function toValidator(schema: unknown): Validator {
  if (schema !== null && typeof schema === "object" && typeof (schema as Partial<Validator>).safeParse === "function") return schema as Validator;
  if (schema === null || typeof schema !== "object") throw new TypeError("json-schema needs a JSON Schema object or a zod schema as expected");
  let validator = converted.get(schema);
  // Stryker disable next-line ConditionalExpression: equivalent, converting again gives an equal validator; the cache only saves time
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as unknown as Validator;
    converted.set(schema, validator);
  }
  return validator;
}

function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent, the capture group always takes part in a match, so the text is never undefined and the fallback never used
  const body = (fenced ? fenced[1] : text)?.trim() ?? "";
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export const jsonSchemaScorer = registerBuiltin(
  defineScorer<JsonSchemaOptions>({
    name: "json-schema",
    options: { parse: z.boolean() },
    description: "The value, or the JSON in the text, is valid against the expected JSON Schema (or zod schema).",
    score({ value, expected, options }) {
      let subject = value;
      if (typeof value === "string" && options.parse !== false) {
        const parsed = parseJsonText(value);
        if (!parsed.ok) return failed(`the text is not JSON (${parsed.message}): ${describe(value, 100)}`);
        subject = parsed.value;
      }
      const result = toValidator(expected).safeParse(subject);
      if (result.success) return passed("valid against the schema");
      if (result.error.issues.length === 0) {
        const what = subject === value ? `the value ${describe(subject, 100)}` : `the JSON in the text, ${describe(subject, 100)},`;
        return failed(`invalid: ${what} does not match the schema (the validator named no violation)`, { issues: [] });
      }
      // Every violation, not only the first: fixing one at a time is a slow loop.
      const issues = result.error.issues.map((issue) => ({ path: issue.path.length ? issue.path.map(String).join(".") : "(root)", message: issue.message }));
      const shown = issues.slice(0, 5).map((issue) => `at ${issue.path}: ${issue.message}`);
      if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
      return failed(`${issues.length === 1 ? "invalid" : `${issues.length} violations`}: ${shown.join("; ")}`, { issues });
    },
  }),
);
