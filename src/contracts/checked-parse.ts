/**
 * How Retrace runs its own schemas on data that comes in. zod compiles a fast path for an
 * object schema (generated code) the first time it parses with it; that pays off over many
 * parses but costs more than it saves in a process that checks a config, a mock script and a
 * few events once each — most `retrace` commands. So a schema's first parses take zod's
 * interpreted path (the same checks, the same result and issues) and only a schema that keeps
 * being used (events, per-case scripts) gets its fast path compiled.
 */
import type { z } from "zod";

/** Parses a schema has run before its fast path is worth compiling. */
const INTERPRETED_PARSES = 16;

const parses = new WeakMap<object, number>();

export function checkedParse<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  const count = parses.get(schema) ?? 0;
  if (count >= INTERPRETED_PARSES) return schema.safeParse(value);
  parses.set(schema, count + 1);
  return schema.safeParse(value, { jitless: true });
}
