/**
 * `acceptedAsIs` lets the log skip zod for an event it can vouch for, so it must never vouch
 * for one zod refuses or would give back changed: whenever it says yes, zod accepts the value
 * and gives back an equal one. And it must say yes to the events agents write, or the log pays
 * for both checks.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { acceptedAsIs } from "../../src/contracts/as-is.js";
import { awkwardLeaf, defOf, valuesOf, wild } from "./schema-values.js";
import { MessageSchema, RunEventSchema, ScriptSchema } from "../../src/contracts/index.js";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { checkEvents, checkStoredBodies, checkStoredBody, encodeEvents, parseEvent } from "../../src/journal/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { calculatorTool } from "../../src/tools/builtin/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

const eventSchemas = RunEventSchema.options as unknown as z.ZodType[];

/** The claim: a yes means zod accepts the value and gives back an equal one. */
function vouchesTruly(schema: z.ZodType, value: unknown): void {
  if (!acceptedAsIs(schema, value)) return;
  const parsed = schema.safeParse(value);
  expect(parsed.success).toBe(true);
  expect(parsed.data).toStrictEqual(value);
}

describe("acceptedAsIs", () => {
  it("says yes to a value only when zod accepts it and gives it back equal, for every event type", () => {
    fc.assert(
      fc.property(fc.constantFrom(...eventSchemas).chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema, 3))), ([schema, value]) => {
        vouchesTruly(schema, value);
      }),
      { numRuns: 3000 },
    );
  });

  it("says yes to every valid event it is given, with nothing left for zod", () => {
    fc.assert(
      fc.property(fc.constantFrom(...eventSchemas).chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema, 0))), ([schema, value]) => {
        expect(schema.safeParse(value).success).toBe(true);
        expect(acceptedAsIs(schema, value)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("holds for the conversation's discriminated union and on values that are barely anything", () => {
    fc.assert(
      fc.property(fc.oneof(valuesOf(MessageSchema, 5), wild, awkwardLeaf), (value) => {
        vouchesTruly(MessageSchema, value);
        for (const schema of eventSchemas.slice(0, 6)) vouchesTruly(schema, value);
      }),
      { numRuns: 2000 },
    );
  });

  it("says yes to the events a real agent run writes", async () => {
    const store = new MemoryRunStore();
    const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 3), ids: sequentialIds("as_is_") });
    const model = new ScriptedModel({
      responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "2 * 21" } }] }, { text: "It is 42." }],
    });
    const run = AgentRun.start({ name: "calc", system: "Use the calculator.", maxSteps: 4, model, tools: [calculatorTool()] }, { store, context });
    await run.send("What is 2 times 21?");
    const events = run.log.events.map((event) => JSON.parse(JSON.stringify(event)) as { type: string });
    expect(events.map((event) => event.type)).toContain("tool.finished");
    for (const event of events) {
      const schema = eventSchemas.find((candidate) => defOf(candidate).shape?.type && (defOf(defOf(candidate).shape?.type as z.ZodType).values ?? []).includes(event.type));
      expect(schema, event.type).toBeDefined();
      expect(acceptedAsIs(schema as z.ZodType, event), event.type).toBe(true);
    }
  });

  it("makes every path of the log hand back the same event, equal to zod's and with its keys in canonical order", async () => {
    const store = new MemoryRunStore();
    const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 3), ids: sequentialIds("paths_") });
    const model = new ScriptedModel({ responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, { text: "42." }] });
    const run = AgentRun.start({ name: "calc", system: "Use the calculator.", maxSteps: 4, model, tools: [calculatorTool()] }, { store, context });
    await run.send("What is 6 times 7?");
    const bodies = store.readRaw(run.runId);
    expect(bodies.length).toBeGreaterThan(4);
    for (const [index, body] of bodies.entries()) {
      const written = checkEvents([JSON.parse(body) as RunEvent]);
      // The event the writer's log holds (what it folded, what its store gave back) shares the
      // run's immutable parts (its tool list, its conversation) as they were registered: equal,
      // and its own fields in the order of its text.
      const held = run.log.events[index];
      expect(held).toEqual(RunEventSchema.parse(JSON.parse(body)));
      expect(Object.keys(held as object), `seq ${index + 1}`).toEqual(Object.keys(JSON.parse(body) as object));
      const paths = [written.events[0], checkStoredBody(body), parseEvent(body), checkStoredBodies([body])[0]];
      // A sealed array hands back what was checked when it was made; a second reader checks it in full.
      const sealed = encodeEvents([JSON.parse(body) as RunEvent]);
      paths.push(checkStoredBodies(sealed)[0], checkStoredBodies(sealed)[0]);
      expect(written.bodies[0], `seq ${index + 1}`).toBe(body);
      for (const event of paths) {
        expect(event).toEqual(RunEventSchema.parse(JSON.parse(body)));
        expect(JSON.stringify(event), `seq ${index + 1}`).toBe(body);
      }
    }
  });

  it("leaves zod alone to judge what it cannot vouch for: defaults, transforms, refinements, strict objects, formats", () => {
    const cases: [z.ZodType, unknown][] = [
      [z.object({ a: z.string().default("x") }), { a: "y" }],
      [z.string().transform((text) => text.toUpperCase()), "a"],
      [z.number().refine((n) => n > 1), 2],
      [z.strictObject({ a: z.string() }), { a: "b" }],
      [z.string().email(), "a@b.co"],
      [z.xor([z.string(), z.number()]), "a"],
      [z.object({ a: z.string() }).catchall(z.number()), { a: "b" }],
      [ScriptSchema, { responses: [] }],
    ];
    for (const [schema, value] of cases) {
      expect(schema.safeParse(value).success).toBe(true);
      expect(acceptedAsIs(schema, value)).toBe(false);
    }
  });

  it("follows zod's own rules where they are not the obvious ones: code points, schemas that are checks, numeric enums, ambiguous tags", () => {
    enum Numeric {
      A = 0,
    }
    const tagged = z.discriminatedUnion("k", [z.object({ k: z.literal("a").optional(), a: z.string().optional() }), z.object({ k: z.literal("b").optional() })]);
    // Each value: zod refuses it, so a yes would let the log keep what its schema does not allow.
    const refused: [z.ZodType, unknown][] = [
      [z.string().min(2), "😀"],
      [z.int(), 1.5],
      [z.email(), "nope"],
      [z.enum(Numeric), "A"],
      [tagged, {}],
    ];
    for (const [schema, value] of refused) {
      expect(schema.safeParse(value).success).toBe(false);
      expect(acceptedAsIs(schema, value)).toBe(false);
    }
    // And the counting is zod's, not merely cautious: two code points are two.
    expect(acceptedAsIs(z.string().min(2), "😀😀")).toBe(true);
    expect(acceptedAsIs(z.string().min(2), "a\ud800")).toBe(true);
    expect(z.string().min(2).safeParse("a\ud800").success).toBe(true);
  });

  it("says no where zod would give back something else: an unknown key, an undefined field, a class, a hole", () => {
    const schema = z.object({ a: z.string(), b: z.array(z.number()).optional(), c: z.record(z.string(), z.boolean()).optional() });
    expect(acceptedAsIs(schema, { a: "x", b: [1], c: { k: true } })).toBe(true);
    expect(schema.safeParse({ a: "x", extra: 1 }).success).toBe(true);
    expect(acceptedAsIs(schema, { a: "x", extra: 1 })).toBe(false);
    expect(acceptedAsIs(schema, { a: "x", b: undefined })).toBe(false);
    expect(acceptedAsIs(schema, Object.assign(Object.create(null) as object, { a: "x" }))).toBe(false);
    expect(acceptedAsIs(schema, { a: "x", b: [1, , 2] })).toBe(false);
    expect(acceptedAsIs(schema, { a: "x", c: JSON.parse('{"__proto__": true}') as unknown })).toBe(false);
    expect(acceptedAsIs(z.number(), NaN)).toBe(false);
    expect(acceptedAsIs(z.number(), Infinity)).toBe(false);
    expect(acceptedAsIs(z.number().int(), 2 ** 53)).toBe(false);
  });

  it("compiles schemas whose keys and literals are not identifiers: quotes, line breaks, $ and code-like text stay data", () => {
    const awkward = ['a"b', "line\nbreak", "\u2028", "$ref", "}; return true; //", "item"];
    const shape = Object.fromEntries(awkward.map((key) => [key, z.literal(key)]));
    const schema = z.object({ ...shape, n: z.number().int().nonnegative().max(10), o: z.string().optional() });
    const valid: Record<string, unknown> = { ...Object.fromEntries(awkward.map((key) => [key, key])), n: 3 };
    const cases: unknown[] = [
      valid,
      { ...valid, o: "x" },
      { ...valid, "$ref": "itemref" },
      { ...valid, "}; return true; //": "x" },
      { ...valid, n: -1 },
      { ...valid, n: 1.5 },
      { ...valid, n: 11 },
      { ...valid, o: 1 },
      { ...valid, o: undefined },
      { ...valid, extra: 1 },
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== "item")),
    ];
    const answers = cases.map((value) => acceptedAsIs(schema, value));
    expect(answers).toEqual([true, true, false, false, false, false, false, false, false, false, false]);
    for (const value of cases) vouchesTruly(schema, value);
  });

  it("asks only the option a discriminated union's tag names, and says the same as zod with code generation off", () => {
    for (const value of [{ role: "user", content: "hi" }, { role: "tool", toolCallId: "c", name: "n", content: "x", isError: false }, { role: "nobody", content: "x" }, { content: "x" }, "user", null]) {
      expect(acceptedAsIs(MessageSchema, value)).toBe(MessageSchema.safeParse(value).success);
    }
    // A process that may not generate code gets the closure checkers, with the same answers.
    const script = [
      'import { acceptedAsIs } from "./src/contracts/as-is.ts";',
      'import { MessageSchema } from "./src/contracts/index.ts";',
      'const answers = [{ role: "user", content: "hi" }, { role: "user", content: 1 }, { role: "user", content: "hi", extra: 1 }].map((value) => acceptedAsIs(MessageSchema, value));',
      "console.log(JSON.stringify(answers));",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual([true, false, false]);
  });
});
