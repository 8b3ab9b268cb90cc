import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, digest } from "../../src/canonical/index.js";
import { CanonicalJsonError } from "../../src/errors/index.js";

const jsonValue = fc.jsonValue();

function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, random));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    entries.sort(() => random() - 0.5);
    return Object.fromEntries(entries.map(([key, item]) => [key, shuffleKeys(item, random)]));
  }
  return value;
}

describe("canonicalJson", () => {
  it("round-trips any JSON value (parse of the text equals the value, -0 aside)", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("does not depend on key order", () => {
    fc.assert(
      fc.property(jsonValue, fc.integer(), (value, seed) => {
        let state = seed;
        const random = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
        expect(canonicalJson(shuffleKeys(value, random))).toBe(canonicalJson(value));
        expect(digest(shuffleKeys(value, random))).toBe(digest(value));
      }),
    );
  });

  it("is idempotent: canonicalising canonical text changes nothing", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const once = canonicalJson(value);
        expect(canonicalJson(JSON.parse(once))).toBe(once);
      }),
    );
  });

  it("sorts keys and has no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [1, { d: "x y", c: null }], "": true })).toBe('{"":true,"a":[1,{"c":null,"d":"x y"}],"b":1}');
  });

  it("sorts array-index-like keys by code unit too, not numerically as engines order them", () => {
    expect(canonicalJson({ a: 0, "9": 1, "10": 2 })).toBe('{"10":2,"9":1,"a":0}');
    expect(canonicalJson([{ z: { "2": 0, "1x": 1 } }])).toBe('[{"z":{"1x":1,"2":0}}]');
  });

  it("keeps a __proto__ key as an ordinary key", () => {
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1},"b":1}');
  });

  it("omits undefined object properties like JSON does", () => {
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
  });

  it.each([
    ["NaN", { x: Number.NaN }, "$.x", /NaN/],
    ["Infinity", [1, Number.POSITIVE_INFINITY], "$[1]", /Infinity/],
    ["undefined in an array", [1, undefined], "$[1]", /undefined/],
    ["a sparse array", [1, , 3], "$[1]", /hole/],
    ["BigInt", { n: 10n }, "$.n", /BigInt/],
    ["a function", { f: () => 1 }, "$.f", /function/],
    ["a Date", { when: new Date(0) }, "$.when", /Date/],
    ["a Map", { m: new Map() }, "$.m", /Map/],
  ])("refuses %s, naming the path", (_name, value, path, message) => {
    const error = (() => {
      try {
        canonicalJson(value);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect((error as CanonicalJsonError).place.path).toBe(path);
    expect((error as CanonicalJsonError).message).toMatch(message);
  });

  it("refuses cycles but accepts a shared (acyclic) reference", () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });
});
