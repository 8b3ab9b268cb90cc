/**
 * Validation at the edge: a provider's body is checked with zod before anything reads it, so a
 * wrong shape fails here, loudly and naming the field, instead of as `undefined` three layers
 * down in the agent.
 */
import type { z } from "zod";
import { providerError, type ProviderCallContext } from "./errors.js";

export function parseWire<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  context: ProviderCallContext,
  what: string,
): z.output<Schema> {
  if (typeof value === "string") {
    // The SDKs hand back the raw text when the content type is not JSON.
    const start = value.replace(/\s+/g, " ").trim().slice(0, 120);
    throw providerError(context, "invalid_response", `${context.label} sent ${what} that is not JSON: "${start}"`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw providerError(
    context,
    "invalid_response",
    `${context.label} sent ${what} of the wrong shape: ${describeShapeError(result.error)}`,
  );
}

export function describeShapeError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
      return `${path === "" ? "the body" : path.replace(/^\./, "")}: ${issue.message}`;
    })
    .join("; ");
}
