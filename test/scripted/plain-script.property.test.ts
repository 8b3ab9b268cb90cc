/**
 * The shortcut for the commonest script (ordered text answers) must give exactly what
 * ScriptSchema gives, key order included, and leave every other value to zod.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScriptSchema } from "../../src/contracts/index.js";
import { plainScript } from "../../src/providers/scripted/plain-script.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";

const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.boolean(), fc.integer(), fc.constant(null), fc.constant(undefined));
const entry = fc.oneof(
  { weight: 4, arbitrary: fc.record({ text: fc.string({ maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ text: scalar, tool_calls: fc.constant([{ name: "t" }]), stop_reason: fc.constantFrom("end_turn", "bogus"), extra: scalar }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: scalar },
);
const responses = fc.oneof({ weight: 4, arbitrary: fc.array(entry, { maxLength: 4 }) }, { weight: 1, arbitrary: scalar });
const known = { model: fc.oneof(fc.string({ maxLength: 4 }), scalar), responses, allow_unused: fc.oneof(fc.boolean(), scalar) };
const script = fc.oneof(
  { weight: 3, arbitrary: fc.record(known, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ ...known, rules: fc.constant([]), other: scalar }, { requiredKeys: [] }) },
);

describe("the shortcut for a script of text answers", () => {
  it("gives what ScriptSchema gives whenever it gives anything, and takes the common scripts", () => {
    let taken = 0;
    fc.assert(
      fc.property(script, (value) => {
        const quick = plainScript(value);
        if (quick === undefined) return;
        taken++;
        const parsed = ScriptSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(JSON.stringify(quick)).toBe(JSON.stringify(parsed.data));
        expect(quick).toStrictEqual(parsed.data);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it("reads keys as zod does, and leaves what it does not know to zod", () => {
    const bare = Object.assign(Object.create(null) as object, { responses: [{ text: "hi" }] });
    expect(plainScript(bare)).toStrictEqual(ScriptSchema.parse(bare));
    const hidden = Object.defineProperty({}, "responses", { value: [{ text: "hi" }], enumerable: false });
    expect(plainScript(hidden)).toStrictEqual(ScriptSchema.parse(hidden));
    expect(plainScript({ responses: [{ text: "hi" }] })).toStrictEqual({ model: "scripted", responses: [{ text: "hi" }], rules: [], allow_unused: false });
    // A key zod reads by name that for-in does not see: found in review.
    const rule = { when: {}, respond: { text: "r" } };
    const hiddenRules = Object.defineProperty({ responses: [{ text: "a" }] }, "rules", { value: [rule], enumerable: false });
    const hiddenFault = { responses: [Object.defineProperty({ text: "a" }, "error", { value: { kind: "server" }, enumerable: false })] };
    const hiddenCalls = { responses: [Object.defineProperty({ text: "a" }, "tool_calls", { value: 5, enumerable: false })] };
    const inherited = { responses: [Object.assign(Object.create({ stop_reason: "bogus" }) as object, { text: "a" })] };
    for (const other of [hiddenRules, hiddenFault, hiddenCalls, inherited, { responses: [{ text: "a", usage: {} }] }, { rules: [] }, { responses: [{}] }, { responses: new (class extends Array {})() }, [], "x"]) {
      expect(plainScript(other)).toBeUndefined();
    }
  });

  it("still names a wrong script's problem, through zod", () => {
    expect(() => new ScriptedModel({ responses: [{ text: 3 }] } as never)).toThrow(/responses\[0\]\.text|expected string/);
  });
});
