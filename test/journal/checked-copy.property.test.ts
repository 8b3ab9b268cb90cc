/**
 * checkEvents copies and checks a whole event in one walk guided by its schema (checked-copy.ts)
 * instead of the canonical copy walk and then acceptedAsIs. The walk decides nothing: whenever
 * it gives a copy, the two steps it replaces give an equal copy, say yes to it, and write the
 * same text; and it gives one for the events agents write, or the log pays for both walks.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { canonicalCopy, canonicalText, immutable, isImmutable, NOT_PLAIN } from "../../src/canonical/index.js";
import { acceptedAsIs } from "../../src/contracts/as-is.js";
import { RunEventSchema, type RunEvent } from "../../src/contracts/index.js";
import { AgentRun } from "../../src/agent/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import { checkedCopier } from "../../src/journal/checked-copy.js";
import { checkEvents } from "../../src/journal/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { calculatorTool } from "../../src/tools/builtin/index.js";
import { valuesOf } from "./schema-values.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const eventSchemas = RunEventSchema.options as unknown as z.ZodType[];

/** The claim: a copy means the two-step path gives an equal copy, vouched for, with the same text. */
function copiesTruly(schema: z.ZodType, value: unknown): boolean {
  const copier = checkedCopier(schema);
  if (!copier) return false;
  const copy = copier(value, 0);
  if (copy === NOT_PLAIN) return false;
  const form = canonicalCopy(value);
  expect(copy).toStrictEqual(form.copy);
  expect(acceptedAsIs(schema, form.copy)).toBe(true);
  expect(JSON.stringify(copy)).toBe(canonicalText(form));
  return true;
}

async function agentEvents(): Promise<readonly RunEvent[]> {
  const store = new MemoryRunStore();
  const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 3), ids: sequentialIds("copy_") });
  const model = new ScriptedModel({ responses: [{ tool_calls: [{ name: "calculator", arguments: { expression: "2 * 21" } }] }, { text: "It is 42." }] });
  const run = AgentRun.start({ name: "calc", system: "Use the calculator.", maxSteps: 4, model, tools: [calculatorTool()] }, { store, context });
  await run.send("What is 2 times 21?");
  return run.log.events;
}

describe("the checked copy of an event", () => {
  it("gives a copy only when the copy walk and acceptedAsIs give that copy, say yes and write the same text", () => {
    fc.assert(
      fc.property(fc.constantFrom(...eventSchemas).chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema, 3))), ([schema, value]) => {
        copiesTruly(schema, value);
      }),
      { numRuns: 3000 },
    );
  });

  it("gives a copy of every valid event, each made fresh", () => {
    fc.assert(
      fc.property(fc.constantFrom(...eventSchemas).chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema, 0))), ([schema, value]) => {
        // An index key ("0") in an open part is written by the general writer, never copied so.
        const form = canonicalCopy(value);
        if (!form.sorted || form.big) return;
        expect(copiesTruly(schema, value)).toBe(true);
        expect((checkedCopier(schema) as NonNullable<ReturnType<typeof checkedCopier>>)(value, 0)).not.toBe(value);
      }),
      { numRuns: 1000 },
    );
  });

  it("holds with parts registered immutable, shared or ordered as twins", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...eventSchemas).chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema, 1), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }))),
        ([schema, value, registered]) => {
          if (typeof value === "object" && value !== null) {
            Object.values(value).forEach((part, index) => {
              if (registered[index] && typeof part === "object" && part !== null) {
                try {
                  immutable(part);
                } catch {
                  // Not plain data (a Map, a Date): left as it is.
                }
              }
            });
          }
          copiesTruly(schema, value);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("copies every event a real run writes, sharing its immutable tool list as an equal twin with its keys in order", async () => {
    const events = await agentEvents();
    const llmStarted = events.find((event) => event.type === "llm.started") as RunEvent & { request: { tools: unknown[] } };
    expect(isImmutable(llmStarted.request.tools)).toBe(true);
    for (const event of events) {
      const schema = eventSchemas.find((candidate) => candidate.safeParse(event).success) as z.ZodType;
      expect(copiesTruly(schema, event), event.type).toBe(true);
    }
    const [first, second] = [0, 1].map(() => checkEvents([llmStarted]).events[0] as typeof llmStarted);
    // A JSON Schema holds its keys out of order: the stored copy holds the same value in order, made once.
    expect(first?.request.tools).toStrictEqual(JSON.parse(JSON.stringify(llmStarted.request.tools)));
    expect(first?.request.tools).not.toBe(llmStarted.request.tools);
    expect(first?.request.tools).toBe(second?.request.tools);
    expect(isImmutable(first?.request.tools)).toBe(true);
    expect(checkEvents([llmStarted]).bodies[0]).toBe(canonicalText(canonicalCopy(llmStarted)));
  });

  it("reads each field once, so a getter cannot show the check one value and the log another", () => {
    let reads = 0;
    const event = {
      v: 1,
      runId: "r",
      seq: 2,
      at: "2026-01-01T00:00:00.000Z",
      type: "message",
      role: "user",
      get content(): string {
        reads++;
        return reads === 1 ? "checked" : "other";
      },
    };
    const { events, bodies } = checkEvents([event as unknown as RunEvent]);
    expect(reads).toBe(1);
    expect((events[0] as { content: string }).content).toBe("checked");
    expect(bodies[0]).toContain('"content":"checked"');
  });

  it("leaves to the copy walk what it cannot copy so, which then names the place of a refusal", () => {
    const base = { v: 1, runId: "r", seq: 1, at: "2026-01-01T00:00:00.000Z", type: "message", role: "user", content: "hi" };
    const copier = checkedCopier(eventSchemas.find((schema) => schema.safeParse(base).success) as z.ZodType) as NonNullable<ReturnType<typeof checkedCopier>>;
    expect(copier(base, 0)).not.toBe(NOT_PLAIN);
    for (const value of [{ ...base, extra: 1 }, { ...base, content: undefined }, { ...base, content: "x".repeat(64 * 1024) }, { ...base, seq: -0.5 }, Object.create(null) as object]) {
      expect(copier(value, 0)).toBe(NOT_PLAIN);
    }
    // An immutable event whose keys are in order is shared, as the copy walk shares it; one out
    // of order gives its ordered twin, equal and immutable too.
    const ordered = immutable(JSON.parse(canonicalText(canonicalCopy(base))) as object);
    expect(copier(ordered, 0)).toBe(ordered);
    expect(canonicalCopy(ordered).copy).toBe(ordered);
    const unordered = immutable({ ...base });
    const twin = copier(unordered, 0);
    expect(twin).toStrictEqual(canonicalCopy(unordered).copy);
    expect(isImmutable(twin)).toBe(true);
    expect(copier(unordered, 0)).toBe(twin);
    expect(() => checkEvents([{ ...base, blocked: Number.NaN } as unknown as RunEvent])).toThrow(/\$?blocked|NaN/);
    // A long string is spliced by the copy walk, not copied: the stored text is the same.
    const long = { ...base, content: "x".repeat(64 * 1024) };
    expect(checkEvents([long as unknown as RunEvent]).bodies[0]).toBe(canonicalText(canonicalCopy(long)));
  });

  it("gives the same events and bodies with code generation off (the closure copiers)", async () => {
    const events = await agentEvents();
    const expected = checkEvents(events).bodies;
    const script = [
      'import { checkEvents } from "./src/journal/index.ts";',
      'import { readFileSync } from "node:fs";',
      "const events = JSON.parse(readFileSync(0, 'utf8'));",
      "console.log(JSON.stringify(checkEvents(events).bodies));",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      input: JSON.stringify(events),
    });
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual(expected);
  });
});
