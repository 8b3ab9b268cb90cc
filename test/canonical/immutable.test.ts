/**
 * Immutable values: what is derived from one (canonical text, a canonical copy, a redacted
 * form, a checked event) is made once and kept, so it must always equal what a walk from
 * scratch of an equal, unregistered value gives — and the value must not be able to change
 * under the cache.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalText, deepFreeze, digest, grownFrom, immutable, immutableList, isImmutable, noteWritten } from "../../src/canonical/index.js";
import { CanonicalJsonError } from "../../src/errors/index.js";
import { createRedactor } from "../../src/redaction/index.js";

/** A deep copy that shares no object with `value` (and is not registered). */
const fresh = <T>(value: T): T => structuredClone(value);

/** Values with objects where canonical JSON has something to do: key order, undefined properties, -0, index keys, long-ish strings. */
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(-0));
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("7", "10", "__proto__x", "a", "b"));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(key, fc.oneof(tie("node"), fc.constant(undefined)), { maxKeys: 4 }),
})).node;

describe("immutable", () => {
  it("freezes deeply and registers every object in the value", () => {
    const message = immutable({ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "echo", arguments: "{}" }] });
    expect(isImmutable(message)).toBe(true);
    expect(isImmutable(message.toolCalls)).toBe(true);
    expect(isImmutable(message.toolCalls[0])).toBe(true);
    expect(Object.isFrozen(message.toolCalls[0])).toBe(true);
    // ESM is strict code: a tool or hook that tries to edit a message gets a TypeError, not a stale cache.
    expect(() => {
      (message as { content: string }).content = "changed";
    }).toThrow(TypeError);
    expect(() => (message.toolCalls as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (message.toolCalls[0] as { arguments: string }).arguments = "{\"x\":1}";
    }).toThrow(TypeError);
    expect(canonicalJson(message)).toBe(canonicalJson(fresh(message)));
  });

  it("immutableList makes its own frozen list: the source's later changes and accessors do not reach it", () => {
    const first = { role: "user", content: "one" };
    const source: unknown[] = [first];
    let reads = 0;
    Object.defineProperty(source, 1, { get: () => ({ role: "user", content: `read ${++reads}` }), enumerable: true, configurable: true });
    const list = immutableList(source);
    expect(isImmutable(list)).toBe(true);
    expect(isImmutable(first)).toBe(true);
    source.push({ role: "user", content: "later" });
    const text = canonicalJson(list);
    expect(text).toBe('[{"content":"one","role":"user"},{"content":"read 1","role":"user"}]');
    expect(canonicalJson(list)).toBe(text);
    expect(canonicalJson({ messages: list })).toBe(`{"messages":${text}}`);
    expect(() => (list as unknown[]).push(1)).toThrow(TypeError);
  });

  it("does not register a value merely frozen elsewhere, whose insides may still change", () => {
    const inner = { text: "a" };
    const outer = Object.freeze({ inner });
    expect(isImmutable(outer)).toBe(false);
    expect(canonicalJson(outer)).toBe('{"inner":{"text":"a"}}');
    inner.text = "b";
    expect(canonicalJson(outer)).toBe('{"inner":{"text":"b"}}');
  });

  it("refuses what is not plain data: instances, functions, accessors", () => {
    expect(() => immutable({ at: new Date(0) })).toThrow(TypeError);
    expect(() => immutable({ run: () => 1 })).toThrow(TypeError);
    let reads = 0;
    expect(() => immutable(Object.defineProperty({}, "n", { get: () => ++reads, enumerable: true }))).toThrow(TypeError);
  });

  it("a registered value's canonical text, copy and digest equal those of an equal fresh value, alone and inside others", () => {
    fc.assert(
      fc.property(value, value, fc.string({ maxLength: 4 }), (shared, other, name) => {
        let expected: string | Error;
        try {
          expected = canonicalJson(fresh({ [name]: shared, other, list: [shared, other, shared] }));
        } catch (error) {
          expected = error as Error;
        }
        const registered = immutable(fresh(shared));
        // Twice: the second time reads what the first remembered.
        for (let round = 0; round < 2; round++) {
          const composite = { [name]: registered, other: fresh(other), list: [registered, fresh(other), registered] };
          if (expected instanceof Error) {
            expect(() => canonicalJson(composite)).toThrow(CanonicalJsonError);
            continue;
          }
          expect(canonicalJson(composite)).toBe(expected);
          expect(digest(composite)).toBe(digest(JSON.parse(expected)));
          const form = canonicalCopy(composite);
          expect(canonicalText(form)).toBe(expected);
          // The copy is what a reader of the text gets (it may share the registered parts).
          expect(form.copy).toStrictEqual(JSON.parse(expected));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a registered part long enough to be spliced in gives the text, copy and digest of a fresh one, at any depth", () => {
    // Long leaves push a registered part's text past the splice threshold, so the writer walks
    // only the objects above the spliced parts and hands the rest to JSON.stringify.
    const longLeaf = fc.oneof(leaf, leaf, fc.constantFrom("x".repeat(900), "y".repeat(2100), `"quoted"\n${"é".repeat(1200)}`));
    const bigValue = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, longLeaf, tie("array"), tie("object")),
      array: fc.array(tie("node"), { maxLength: 4 }),
      object: fc.dictionary(key, fc.oneof(tie("node"), fc.constant(undefined)), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, bigValue, { minKeys: 2, maxKeys: 4 }), value, (shared, other) => {
        let expected: string | Error;
        try {
          expected = canonicalJson(fresh({ z: { shared, other }, a: [other, { deeper: shared }], m: "x" }));
        } catch (error) {
          expected = error as Error;
        }
        const registered = immutable(fresh(shared));
        const composite = { z: { shared: registered, other: fresh(other) }, a: [fresh(other), { deeper: registered }], m: "x" };
        if (expected instanceof Error) {
          expect(() => canonicalJson(composite)).toThrow(CanonicalJsonError);
          return;
        }
        expect(canonicalJson(composite)).toBe(expected);
        const form = canonicalCopy(composite);
        expect(canonicalText(form)).toBe(expected);
        expect(form.copy).toStrictEqual(JSON.parse(expected));
        expect(digest(composite)).toBe(digest(JSON.parse(expected)));
      }),
      { numRuns: 200 },
    );
  });

  it("a refusal inside a registered value names the same place as for a fresh one", () => {
    const bad = { list: [1, { n: Number.NaN }] };
    const place = (input: unknown) => {
      try {
        canonicalJson(input);
      } catch (error) {
        return (error as CanonicalJsonError).place.path;
      }
      return undefined;
    };
    const registered = immutable(fresh(bad));
    expect(place({ request: registered })).toBe(place({ request: bad }));
    expect(place({ request: registered })).toBe("$.request.list[1].n");
  });

  it("redacts a growing immutable list as a fresh one at every step, whichever step brings a secret", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom("plain", "hunter2hunter2", "sk-abcdefghijklmnopqrstuvwx", "ok"), { maxLength: 3 }), { minLength: 1, maxLength: 6 }), (steps) => {
        const redactor = createRedactor({ secrets: ["hunter2hunter2"] });
        let list = immutableList<object>([]);
        let plain: object[] = [];
        for (const words of steps) {
          const added = words.map((word) => ({ role: "user", content: word }));
          list = immutableList([...list, ...added.map((message) => immutable(structuredClone(message)))], list);
          plain = [...plain, ...structuredClone(added)];
          // Written, as a request would write it: later lists continue from this one.
          canonicalJson(list);
          expect(redactor.value(list)).toStrictEqual(redactor.value(structuredClone(plain)));
        }
      }),
    );
  });

  it("redacts a registered value as a fresh one, once per redactor, into an immutable result", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("plain", "sk-abcdefghijklmnopqrstuvwx", "hunter2hunter2", "key=hunter2hunter2"), { maxLength: 4 }), (words) => {
        const redactor = createRedactor({ secrets: ["hunter2hunter2"] });
        const message = { role: "tool", content: words.join(" "), name: words[0] ?? "t", toolCallId: "c", isError: false };
        const expected = redactor.value(fresh(message));
        const registered = immutable(fresh(message));
        const first = redactor.value(registered);
        expect(first).toStrictEqual(expected);
        expect(redactor.value(registered)).toBe(first);
        expect(isImmutable(first)).toBe(true);
        // Another redactor (other secrets) derives its own result.
        expect(createRedactor({ patterns: false }).value(registered)).toStrictEqual(createRedactor({ patterns: false }).value(fresh(message)));
      }),
    );
  });
});

describe("immutable parts JSON.stringify would not write as their keys", () => {
  it("an own toJSON, an array of another kind or an array with a key besides its indexes cannot be registered (found in review)", () => {
    const hidden = Object.defineProperty({ content: "hi", role: "user" }, "toJSON", { value: () => "HIDDEN", enumerable: false });
    const own = Object.defineProperty([1, 2], "toJSON", { value: () => "HIJACK", enumerable: false });
    expect(() => immutable(hidden)).toThrow(/a property JSON does not write/);
    expect(() => immutable(own)).toThrow(/a property JSON does not write|only plain arrays/);
    class Tagged extends Array<number> {
      toJSON(): string {
        return "sub";
      }
    }
    expect(() => immutable(Tagged.from([3]))).toThrow(/only plain arrays/);
    expect(() => immutable(Object.assign([1], { note: "x" }))).toThrow(/only plain arrays/);
    // immutableList makes a plain list of any list it is given.
    const list = immutableList(Tagged.from([3]));
    expect(Object.getPrototypeOf(list)).toBe(Array.prototype);
    expect(canonicalJson({ part: list })).toBe('{"part":[3]}');
    expect(canonicalText(canonicalCopy({ part: list }))).toBe('{"part":[3]}');
  });
});

describe("immutable's refusals and its registry", () => {
  it("refuses what is not plain data, naming it, and a cycle as a cycle", () => {
    expect(() => immutable({ run: () => 1 })).toThrow(new TypeError("immutable: a function is not plain data"));
    expect(() => immutable({ at: new Date(0) })).toThrow(new TypeError("immutable: only plain objects and arrays can be registered"));
    const accessor = Object.defineProperty({}, "late", { get: () => 1, enumerable: true });
    expect(() => immutable({ accessor })).toThrow(new TypeError("immutable: property late is an accessor, not data"));
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => immutable(cycle)).toThrow(new TypeError("immutable: the value contains a cycle (or nests deeper than 512 levels)"));
    // A plain object without a prototype is plain data too.
    expect(isImmutable(immutable(Object.assign(Object.create(null) as object, { a: 1 })))).toBe(true);
  });

  it("takes nesting up to the depth bound and refuses one level past it", () => {
    const nest = (levels: number): unknown => {
      let value: unknown = {};
      for (let level = 0; level < levels; level++) value = { inner: value };
      return value;
    };
    expect(isImmutable(immutable(nest(511)))).toBe(true);
    expect(() => immutable(nest(512))).toThrow(/contains a cycle \(or nests deeper than 512 levels\)/);
    // A part registered already is not walked again: placing it deeper is no new registration.
    const registered = immutable(nest(500));
    expect(isImmutable(immutable({ a: [[[{ registered }]]] }))).toBe(true);
  });

  it("knows registered objects only, never primitives or null", () => {
    expect(isImmutable(null)).toBe(false);
    expect(isImmutable("text")).toBe(false);
    expect(isImmutable(7)).toBe(false);
    expect(isImmutable({})).toBe(false);
    const value = { a: [1] };
    expect(immutable(value)).toBe(value);
    expect(isImmutable(value) && isImmutable(value.a)).toBe(true);
    // Registering again changes nothing.
    expect(immutable(value)).toBe(value);
  });
});

describe("grownFrom", () => {
  const item = (n: number) => immutable({ n });

  it("links a list to the earlier written list it starts with, through lists never written", () => {
    const first = immutableList([item(1)]);
    noteWritten(first);
    const second = immutableList([...first, item(2)], first);
    expect(grownFrom(second)).toBe(first);
    // `second` was never written: a list grown from it continues from `first`.
    const third = immutableList([...second, item(3)], second);
    expect(grownFrom(third)).toBe(first);
    noteWritten(third);
    expect(grownFrom(immutableList([...third, item(4)], third))).toBe(third);
    // The same items, no more, are a prefix too.
    expect(grownFrom(immutableList([...first], first))).toBe(first);
  });

  it("links nothing that does not start with the earlier list, or that grew from a list not registered or never written", () => {
    const one = item(1);
    const two = item(2);
    const first = immutableList([one, two]);
    noteWritten(first);
    expect(grownFrom(immutableList([two, one, item(3)], first))).toBeUndefined();
    expect(grownFrom(immutableList([one, item(2), item(3)], first))).toBeUndefined();
    expect(grownFrom(immutableList([one], first))).toBeUndefined();
    const plain = [one, two];
    noteWritten(plain);
    expect(grownFrom(immutableList([one, two, item(3)], plain))).toBeUndefined();
    const unwritten = immutableList([one, two]);
    expect(grownFrom(immutableList([one, two, item(3)], unwritten))).toBeUndefined();
    expect(grownFrom(immutableList([one, two, item(3)]))).toBeUndefined();
    expect(grownFrom(first)).toBeUndefined();
  });
});

describe("deepFreeze", () => {
  it("freezes plain data all the way down, in place, without registering it", () => {
    const value = { a: { b: [{ c: 1 }] } };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a.b[0])).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(isImmutable(value)).toBe(false);
    expect(deepFreeze("text")).toBe("text");
    expect(deepFreeze(null)).toBeNull();
  });

  it("takes a frozen object as frozen all the way down", () => {
    const inner = { changed: false };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(false);
  });
});
