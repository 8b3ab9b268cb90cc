/**
 * canonicalJson, canonicalCopy and canonicalText take several paths to one text (a native
 * JSON.stringify of a sorted copy, a walk that splices long strings and known immutable texts
 * in, a general writer for keys an object cannot hold in order). Whatever path a value takes,
 * the text must be the one a plain sorted writer gives, the copy must be what JSON.parse of it
 * gives, and the copy may share only immutable parts with the value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalText, immutable, immutableList, isCanonicalTextOf, isImmutable } from "../../src/canonical/index.js";
import { CanonicalJsonError } from "../../src/errors/index.js";

/** The specification: keys by code unit, undefined properties left out, JSON's own text for the rest. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    const parts = keys.filter((key) => (value as Record<string, unknown>)[key] !== undefined).map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** An object with these own properties in this order ("__proto__" as a key, not the prototype). */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, item] of entries) Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
  return object;
}

// Long enough to be spliced in (64 KiB), with and without a character JSON escapes.
const LONG = "a".repeat(64 * 1024);
const LONG_ESCAPED = `${"b".repeat(64 * 1024)}"\n`;
// An immutable text this long (2 KiB) is spliced in rather than written again.
const KNOWN_LONG = "k".repeat(2100);

const key = fc.oneof(fc.constantFrom("a", "b", "z", "7", "10", "__proto__", "", "é", "A"), fc.string({ maxLength: 3 }));
const leaf = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.string({ maxLength: 6 })) },
  { weight: 1, arbitrary: fc.constantFrom(-0, LONG, LONG_ESCAPED, KNOWN_LONG) },
);
const { value } = fc.letrec<{ value: unknown; plain: unknown }>((tie) => ({
  plain: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(key, fc.oneof({ weight: 5, arbitrary: tie("value") }, { weight: 1, arbitrary: fc.constant(undefined) })), { maxLength: 4 }).map(objectOf),
  ),
  // Some parts registered immutable, so they are shared and their text is known.
  value: fc.tuple(tie("plain"), fc.integer({ min: 0, max: 3 })).map(([part, pick]) => (pick === 0 && typeof part === "object" && part !== null ? immutable(part) : part)),
}));

/** Every object the copy shares with the value is immutable. */
function sharesOnlyImmutable(copy: unknown, original: unknown): void {
  if (typeof copy !== "object" || copy === null) return;
  if (copy === original) {
    expect(isImmutable(copy)).toBe(true);
    return;
  }
  if (typeof original !== "object" || original === null) return;
  for (const name of Object.keys(copy)) sharesOnlyImmutable((copy as Record<string, unknown>)[name], (original as Record<string, unknown>)[name]);
}

describe("every writer gives the specified text", () => {
  it("canonicalJson, canonicalCopy and canonicalText agree with a plain sorted writer, and the copy is the text parsed", () => {
    fc.assert(
      fc.property(value, (input) => {
        const text = reference(input);
        expect(canonicalJson(input)).toBe(text);
        const form = canonicalCopy(input);
        expect(form.copy).toStrictEqual(JSON.parse(text));
        expect(canonicalText(form)).toBe(text);
        sharesOnlyImmutable(form.copy, input);
        expect(isCanonicalTextOf(JSON.parse(text), text)).toBe(true);
        // Asked again, from what was remembered of its immutable parts.
        expect(canonicalJson(input)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it("a copy's top level changed by hand (keys added out of order, one unset) is written sorted", () => {
    fc.assert(
      fc.property(value, fc.array(fc.tuple(fc.constantFrom("a", "m", "z", "b"), fc.oneof(fc.integer(), fc.constant(undefined), fc.constant(LONG))), { maxLength: 3 }), (input, added) => {
        const form = canonicalCopy({ body: input, long: LONG });
        const top = form.copy as Record<string, unknown>;
        for (const [name, item] of added) top[name] = item;
        expect(canonicalText(form)).toBe(reference(top));
      }),
      { numRuns: 150 },
    );
  });

  it("an object of many keys (sorted another way) is written sorted too", () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, "0")}`).reverse();
    const wide = objectOf(keys.map((name, i) => [name, i]));
    expect(canonicalJson(wide)).toBe(reference(wide));
    expect(canonicalText(canonicalCopy({ wide, long: LONG }))).toBe(reference({ wide, long: LONG }));
  });

  it("a text JSON.stringify writes in another order, with spaces, or with -0 is not canonical", () => {
    const parsed = JSON.parse('{"a":1,"b":[1,2]}') as unknown;
    expect(isCanonicalTextOf(parsed, '{"a":1,"b":[1,2]}')).toBe(true);
    expect(isCanonicalTextOf(parsed, '{"b":[1,2],"a":1}')).toBe(false);
    expect(isCanonicalTextOf(parsed, '{"a":1, "b":[1,2]}')).toBe(false);
    expect(isCanonicalTextOf([{ b: 1, a: 2 }], '[{"b":1,"a":2}]')).toBe(false);
    expect(isCanonicalTextOf({ x: { y: { b: 1, a: 2 } } }, '{"x":{"y":{"b":1,"a":2}}}')).toBe(false);
  });
});

describe("immutable parts written into others", () => {
  it("a part with an undefined property, a -0 or an index key is copied as its text reads, never shared", () => {
    for (const part of [immutable({ a: 1, gone: undefined }), immutable({ n: -0 }), immutable(objectOf([["7", 1], ["a", 2]])), immutable(objectOf([["__proto__", 1]]))]) {
      const text = reference({ part });
      const form = canonicalCopy({ part });
      expect((form.copy as { part: unknown }).part).not.toBe(part);
      expect(form.copy).toStrictEqual(JSON.parse(text));
      expect(canonicalText(form)).toBe(text);
    }
  });

  it("a list with a hole cannot be registered; written beside a registered part it is refused as a hole, at its place", () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    expect(() => immutable({ list: [1, , 3] })).toThrow(/only plain arrays \(no subclass, hole or extra key\)/);
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    const holed = { registered: immutable({ a: 1 }), list: [1, , 3] };
    for (const write of [() => canonicalJson({ holed }), () => canonicalCopy({ holed })]) {
      const error = (() => {
        try {
          write();
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(CanonicalJsonError);
      expect((error as CanonicalJsonError).message).toMatch(/^a sparse array hole cannot be represented in JSON/);
      expect((error as CanonicalJsonError).place.path).toBe("$.holed.list[1]");
    }
  });

  it("a short part in key order is shared; out of order it is copied sorted", () => {
    const ordered = immutable({ a: 1, b: [1, 2] });
    const unordered = immutable({ b: 1, a: 2 });
    const form = canonicalCopy({ ordered, unordered });
    expect((form.copy as { ordered: unknown }).ordered).toBe(ordered);
    expect(Object.keys((form.copy as { unordered: object }).unordered)).toEqual(["a", "b"]);
    expect(canonicalText(form)).toBe('{"ordered":{"a":1,"b":[1,2]},"unordered":{"a":2,"b":1}}');
  });

  it("a list grown from a written list continues its text, and gives the text of a fresh list at every step", () => {
    let list = immutableList<unknown>([]);
    const plain: unknown[] = [];
    for (const item of [{ b: 1, a: "x" }, KNOWN_LONG, [1, { z: -0 }], { gone: undefined, k: 1 }, LONG]) {
      list = immutableList([...list, immutable(item)], list);
      plain.push(item);
      expect(canonicalJson(list)).toBe(reference(plain));
      expect(canonicalJson({ messages: list, n: 1 })).toBe(reference({ messages: plain, n: 1 }));
      const form = canonicalCopy({ messages: list });
      expect(form.copy).toStrictEqual(JSON.parse(reference({ messages: plain })));
    }
  });
});
