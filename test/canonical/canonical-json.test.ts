import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalize, digest } from "../../src/canonical/index.js";
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
    ["NaN", { x: Number.NaN }, "$.x", /^NaN cannot be represented in JSON$/],
    ["-Infinity", { x: Number.NEGATIVE_INFINITY }, "$.x", /^-Infinity cannot be represented in JSON$/],
    ["undefined at the top", undefined, "$", /^undefined cannot be represented in JSON here$/],
    ["a symbol", { s: Symbol("s") }, "$.s", /^a symbol cannot be represented in JSON$/],
    ["an instance without a constructor", { o: Object.create(Object.create(null) as object) as object }, "$.o", /^an object with a custom prototype cannot be represented in JSON; convert it to plain data first$/],
    ["an object made from another object", { o: Object.create({ a: 1 }) as object }, "$.o", /^an object with a custom prototype cannot be represented in JSON/],
    ["an instance of a class whose name starts with a vowel", { e: new (class Entry {})() }, "$.e", /^an Entry instance cannot be represented in JSON/],
    ["an instance of an anonymous class", { c: new (class {})() }, "$.c", /^an object with a custom prototype cannot be represented in JSON/],
    ["NaN", { x: Number.NaN }, "$.x", /NaN/],
    ["Infinity", [1, Number.POSITIVE_INFINITY], "$[1]", /Infinity/],
    ["undefined in an array", [1, undefined], "$[1]", /undefined/],
    ["a sparse array", [1, , 3], "$[1]", /hole/],
    ["BigInt", { n: 10n }, "$.n", /BigInt/],
    ["a function", { f: () => 1 }, "$.f", /function/],
    ["a Date", { when: new Date(0) }, "$.when", /^a Date instance cannot/],
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

  it("accepts an object with a null prototype as plain data", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, a: 1 });
    expect(canonicalJson({ bare })).toBe('{"bare":{"a":1,"b":2}}');
  });

  it("lets an error that is not a refusal (a throwing getter) through unchanged", () => {
    const failure = new TypeError("the getter failed");
    const value = {
      get broken(): never {
        throw failure;
      },
    };
    expect(() => canonicalJson(value)).toThrow(failure);
    expect(() => canonicalJson({ "1": value })).toThrow(failure);
  });

  it("refuses a value whose getter gave a refused value first and a good one when read again for the error's place", () => {
    let reads = 0;
    const value = {
      get flaky(): number {
        reads++;
        return reads === 1 ? Number.NaN : 1;
      },
    };
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(value)).not.toThrow();
    expect(reads).toBe(3);
  });

  it("names the place of a refusal deep inside a value it otherwise copies, in sorted key order", () => {
    const value = { z: { y: [1, { x: Number.NaN }] }, a: { b: [{ c: 10n }] } };
    const error = (() => {
      try {
        canonicalCopy(value);
      } catch (caught) {
        return caught as CanonicalJsonError;
      }
      return undefined;
    })();
    expect(error?.place.path).toBe("$.a.b[0].c");
    expect(error?.message).toMatch(/BigInt/);
  });

  it("refuses cycles but accepts a shared (acyclic) reference", () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });
});

/** `levels` nested containers around 0, each made by `wrap`. */
function nested(levels: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 0;
  for (let level = 0; level < levels; level++) value = wrap(value);
  return value;
}

function refusal(value: unknown): CanonicalJsonError {
  try {
    canonicalJson(value);
  } catch (caught) {
    if (caught instanceof CanonicalJsonError) return caught;
    throw caught;
  }
  throw new Error("expected canonicalJson to refuse the value");
}

/**
 * Objects with an array-index key ("0", "7") or "__proto__" are written by a second writer (an
 * engine would reorder or drop those keys in a copy): every rule holds there too.
 */
describe("canonicalJson with array-index and __proto__ keys", () => {
  it("orders keys by code unit even where the engine puts index keys first", () => {
    expect(canonicalJson({ "!": 1, "0": 2 })).toBe('{"!":1,"0":2}');
    expect(canonicalJson({ "-": 1, "9": 2 })).toBe('{"-":1,"9":2}');
    expect(canonicalJson({ " ": 1, "5": 2 })).toBe('{" ":1,"5":2}');
  });

  it("keeps a lone __proto__ key, whatever its value", () => {
    expect(canonicalJson(JSON.parse('{"__proto__":1}'))).toBe('{"__proto__":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
  });

  it("omits undefined properties beside an index key", () => {
    expect(canonicalJson({ "0": 1, a: undefined })).toBe('{"0":1}');
  });

  it("gives the same text as for any other object: parse of it equals the value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.nat().map(String), fc.string()), jsonValue), (record) => {
        const text = canonicalJson({ "0": record, list: [record] });
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify({ "0": record, list: [record] })));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it("refuses a sparse array hole inside such an object, naming the path", () => {
    const error = refusal({ "0": [1, , 3] });
    expect(error.message).toBe("a sparse array hole cannot be represented in JSON");
    expect(error.place.path).toBe("$.0[1]");
  });

  it("refuses a cycle through an index key with the cycle message, not a stack overflow", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["0"] = cyclic;
    expect(refusal(cyclic).message).toBe("the value contains a cycle (or nests deeper than 512 levels)");
    const list: unknown[] = [];
    list.push({ "0": list });
    expect(refusal(list).message).toMatch(/cycle/);
  });
});

describe("canonicalJson's depth limit is the 512 levels its message names", () => {
  const tooDeep = "the value contains a cycle (or nests deeper than 512 levels)";
  const shapes: [string, (inner: unknown) => unknown][] = [
    ["arrays", (inner) => [inner]],
    ["objects", (inner) => ({ k: inner })],
    ["objects with an index key", (inner) => ({ "0": inner })],
  ];

  it.each(shapes)("accepts 512 levels of %s and refuses 513", (_name, wrap) => {
    const deepest = nested(512, wrap);
    expect(JSON.parse(canonicalJson(deepest))).toEqual(deepest);
    expect(refusal(nested(513, wrap)).message).toBe(tooDeep);
  });

  it("counts arrays inside objects with an index key as levels too", () => {
    const pair = (inner: unknown) => ({ "0": [inner] });
    expect(JSON.parse(canonicalJson(nested(256, pair)))).toEqual(nested(256, pair));
    expect(refusal([nested(256, pair)]).message).toBe(tooDeep);
  });

  it("refuses a cyclic array with the cycle message", () => {
    const list: unknown[] = [];
    list.push(list);
    expect(refusal(list).message).toMatch(/contains a cycle/);
  });
});

describe("canonicalize", () => {
  it("re-emits JSON text canonically", () => {
    expect(canonicalize('{ "b": [1, 2], "a": { "d": null, "c": "x" } }')).toBe('{"a":{"c":"x","d":null},"b":[1,2]}');
  });

  it("is canonicalJson of the parsed text", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = JSON.stringify(value, null, 2);
        expect(canonicalize(text)).toBe(canonicalJson(JSON.parse(text)));
      }),
    );
  });
});
