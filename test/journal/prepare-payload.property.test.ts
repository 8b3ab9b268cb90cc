/**
 * The log prepares a payload by two steps: its canonical copy, then the schema's verdict on it
 * (a conversation the run state registered takes a shortcut that checks only the messages a
 * step added). Whichever way it went, the prepared payload must be what the copy and the
 * payload's own schema give: the same copy, the same text, the same checked data, and a
 * refusal exactly where they refuse.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { canonicalCopy, canonicalText, immutable } from "../../src/canonical/index.js";
import { acceptedAsIs } from "../../src/contracts/as-is.js";
import { checkedParse } from "../../src/contracts/checked-parse.js";
import { RunEventSchema } from "../../src/contracts/index.js";
import { preparePayload } from "../../src/journal/index.js";
import { valuesOf } from "./schema-values.js";

const STAMP_KEYS = ["v", "runId", "seq", "at", "durationMs"] as const;
type EventSchema = z.ZodObject & { shape: Record<string, z.ZodType> };
const schemas = RunEventSchema.options as unknown as EventSchema[];

/** The payload schema of an event type: the event's without the fields the log stamps. */
const payloadSchema = (schema: EventSchema): z.ZodType => {
  const stamped = Object.fromEntries(STAMP_KEYS.filter((key) => key in schema.shape).map((key) => [key, true as const]));
  return (schema as unknown as { omit(mask: Record<string, true>): z.ZodType }).omit(stamped);
};

/** A payload near the schema: an event's value without its stamp. */
const payloads = fc.constantFrom(...schemas).chain((schema) =>
  fc.tuple(
    fc.constant(schema),
    valuesOf(schema, 3).map((value) => {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
      const payload: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const key of STAMP_KEYS) delete payload[key];
      return payload;
    }),
  ),
);

type Outcome = { refused: true } | { refused: false; copy: unknown; text: string; data: unknown };

/** The two steps: the canonical copy, then the payload schema's verdict on it (zod's copy when it would change it). */
function twoSteps(schema: EventSchema, payload: unknown): Outcome {
  let form;
  try {
    form = canonicalCopy(payload);
  } catch {
    return { refused: true };
  }
  const checked = payloadSchema(schema);
  if (acceptedAsIs(checked, form.copy)) return { refused: false, copy: form.copy, text: canonicalText(form), data: form.copy };
  const parsed = checkedParse(checked, form.copy);
  return parsed.success ? { refused: false, copy: form.copy, text: canonicalText(form), data: parsed.data } : { refused: true };
}

function prepared(payload: unknown): Outcome {
  try {
    const result = preparePayload(payload as { type: never });
    return { refused: false, copy: result.form.copy, text: canonicalText(result.form), data: result.data };
  } catch {
    return { refused: true };
  }
}

/** Equal as Node compares (vitest's toStrictEqual reads a payload's own "constructor" key as its class). */
function same(actual: Outcome, expected: Outcome): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
  expect(isDeepStrictEqual(actual, expected)).toBe(true);
}

describe("preparing a payload", () => {
  it("gives what the canonical copy and the schema's verdict give, refusals included", () => {
    fc.assert(
      fc.property(payloads, ([schema, payload]) => {
        // A payload whose type names another schema is that schema's: compare with its own.
        const type = (payload as { type?: unknown } | null)?.type;
        const own = schemas.find((candidate) => (candidate.shape.type as unknown as { value: unknown }).value === type) ?? schema;
        same(prepared(payload), twoSteps(own, payload));
      }),
      { numRuns: 4000 },
    );
  });

  it("gives the same with the payload's parts registered immutable (a run's conversation and tool list)", () => {
    fc.assert(
      fc.property(payloads, ([schema, payload]) => {
        if (payload === null || typeof payload !== "object") return;
        const shared = Object.fromEntries(
          Object.entries(payload as Record<string, unknown>).map(([key, part]) => {
            try {
              return [key, part !== null && typeof part === "object" ? immutable(structuredClone(part)) : part];
            } catch {
              return [key, part];
            }
          }),
        );
        const type = shared.type;
        const own = schemas.find((candidate) => (candidate.shape.type as unknown as { value: unknown }).value === type) ?? schema;
        same(prepared(shared), twoSteps(own, shared));
      }),
      { numRuns: 2000 },
    );
  });
});
