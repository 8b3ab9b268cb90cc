/** The helpers every built-in scorer leans on: how values are compared and how they are shown in a reason. */
import fc from "fast-check";
import { describe as suite, expect, it } from "vitest";
import type { ToolCallView } from "../../src/contracts/index.js";
import { asText, clip, deepEqual, describe, describeCall, describeCalls, matchesArgs, matchesPartial, normaliseText, plural, toRegExp } from "../../scorers/support.js";

/** JSON data without -0 (which JSON cannot tell from 0, and deepEqual can). */
const data = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** Structural equality of JSON data, written out plainly: the oracle for deepEqual. */
function sameData(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameData(item, b[index]));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const left = Object.keys(a);
    const right = Object.keys(b);
    return left.length === right.length && left.every((key) => Object.hasOwn(b, key) && sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return a === b;
}

const call = (overrides: Partial<ToolCallView>): ToolCallView => ({
  callId: "c1",
  name: "search",
  args: { q: "x" },
  rawArgs: undefined,
  step: 1,
  turn: 1,
  status: "finished",
  result: null,
  error: undefined,
  blocked: undefined,
  ...overrides,
});

suite("deepEqual", () => {
  it("agrees with structural equality on JSON data", () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        expect(deepEqual(a, b)).toBe(sameData(a, b));
        expect(deepEqual(a, structuredClone(a))).toBe(true);
      }),
    );
  });

  it("finds a difference anywhere in an array or an object", () => {
    expect(deepEqual([1, 2, 3], [1, 2, 4])).toBe(false);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual([1], [1, undefined])).toBe(false);
    expect(deepEqual([9, 2], [1, 2])).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it("tells primitives apart by Object.is, and never equates different types", () => {
    expect(deepEqual(0, -0)).toBe(false);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(deepEqual(1, "1")).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
    expect(deepEqual(null, undefined)).toBe(false);
    expect(deepEqual("a", "b")).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({}, [])).toBe(false);
    expect(deepEqual({ 0: "a", length: 1 }, ["a"])).toBe(false);
    expect(deepEqual(["a"], { 0: "a", length: 1 })).toBe(false);
    expect(deepEqual(new String("x"), "x")).toBe(false);
    expect(deepEqual(new Number(1), 1)).toBe(false);
  });

  it("counts a key holding undefined as absent", () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });

  it("treats plain and null-prototype objects as one kind, other prototypes only as themselves", () => {
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(deepEqual(bare, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, bare)).toBe(true);
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    class Other {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    expect(deepEqual(new Point(1, 2), new Point(1, 2))).toBe(true);
    expect(deepEqual(new Point(1, 2), new Point(1, 3))).toBe(false);
    expect(deepEqual(new Point(1, 2), new Other(1, 2))).toBe(false);
    expect(deepEqual(new Point(1, 2), { x: 1, y: 2 })).toBe(false);
    expect(deepEqual({ x: 1, y: 2 }, new Point(1, 2))).toBe(false);
  });

  it("compares dates by time and regular expressions by source and flags", () => {
    expect(deepEqual(new Date(5), new Date(5))).toBe(true);
    expect(deepEqual(new Date(5), new Date(6))).toBe(false);
    expect(deepEqual(new Date(Number.NaN), new Date(Number.NaN))).toBe(true);
    expect(deepEqual(/a+/g, /a+/g)).toBe(true);
    expect(deepEqual(/a+/g, /b+/g)).toBe(false);
    expect(deepEqual(/a+/g, /a+/i)).toBe(false);
  });

  it("compares maps entry by entry, keys by identity or by value", () => {
    expect(deepEqual(new Map([["a", 1], ["b", 2]]), new Map([["b", 2], ["a", 1]]))).toBe(true);
    expect(deepEqual(new Map([["a", 1]]), new Map([["a", 1], ["b", 2]]))).toBe(false);
    expect(deepEqual(new Map([["a", 1], ["b", 2]]), new Map([["a", 1]]))).toBe(false);
    expect(deepEqual(new Map([["a", 1]]), new Map([["b", 1]]))).toBe(false);
    expect(deepEqual(new Map([[{ k: 1 }, "x"]]), new Map([[{ k: 1 }, "x"]]))).toBe(true);
    expect(deepEqual(new Map([[{ k: 1 }, "x"]]), new Map([[{ k: 2 }, "x"]]))).toBe(false);
    expect(deepEqual(new Map([[{ k: 1 }, "x"]]), new Map([[{ k: 1 }, "y"]]))).toBe(false);
    // Each key of one map pairs with a different key of the other.
    expect(deepEqual(new Map([[{ k: 1 }, "x"], [{ k: 2 }, "y"]]), new Map([[{ k: 2 }, "y"], [{ k: 1 }, "x"]]))).toBe(true);
    expect(deepEqual(new Map([[{ k: 1 }, "x"], [{ k: 1 }, "y"]]), new Map([[{ k: 1 }, "x"], [{ k: 2 }, "y"]]))).toBe(false);
    expect(deepEqual(new Map([[null, 1]]), new Map([[null, 1]]))).toBe(true);
    expect(deepEqual(new Map([["x", undefined]]), new Map([["y", undefined]]))).toBe(false);
    expect(deepEqual(new Map<unknown, string>([[1, "a"], ["1", "b"]]), new Map<unknown, string>([["1", "b"], [1, "a"]]))).toBe(true);
  });

  it("compares sets by their members, whatever their order", () => {
    expect(deepEqual(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(deepEqual(new Set([1, 2]), new Set([1]))).toBe(false);
    expect(deepEqual(new Set([1]), new Set([1, 2]))).toBe(false);
    expect(deepEqual(new Set([{ a: 1 }, { a: 2 }]), new Set([{ a: 2 }, { a: 1 }]))).toBe(true);
    expect(deepEqual(new Set([{ a: 1 }, { a: 1 }]), new Set([{ a: 1 }, { a: 2 }]))).toBe(false);
    expect(deepEqual(new Set([{ a: 1 }]), new Set([{ a: 3 }]))).toBe(false);
    expect(deepEqual(new Set([null]), new Set([null]))).toBe(true);
    expect(deepEqual(new Set(["x"]), new Set(["y"]))).toBe(false);
  });

  it("compares typed arrays and buffers views byte by byte", () => {
    expect(deepEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(deepEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(deepEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2]))).toBe(false);
    expect(deepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(deepEqual(new DataView(new Uint8Array([1]).buffer), new DataView(new Uint8Array([2]).buffer))).toBe(false);
    expect(deepEqual(new DataView(new Uint8Array([1]).buffer), new DataView(new Uint8Array([1]).buffer))).toBe(true);
    expect(deepEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(deepEqual(new Uint8Array([1, 2]), new Uint16Array([1, 2]))).toBe(false);
    const buffer = new Uint8Array([0, 1, 2, 3]).buffer;
    expect(deepEqual(new Uint8Array(buffer, 1, 2), new Uint8Array([1, 2]))).toBe(true);
  });

  it("compares boxed primitives by the value they hold", () => {
    expect(deepEqual(new Number(1), new Number(1))).toBe(true);
    expect(deepEqual(new Number(1), new Number(2))).toBe(false);
    expect(deepEqual(new String("a"), new String("b"))).toBe(false);
    expect(deepEqual(new Boolean(true), new Boolean(false))).toBe(false);
  });
});

suite("matchesPartial", () => {
  it("holds when the expected object names a part of the actual one", () => {
    expect(matchesPartial({ q: "x", k: 2 }, { q: "x" })).toBe(true);
    expect(matchesPartial({ q: "x", k: 2 }, { q: "y" })).toBe(false);
    expect(matchesPartial({ q: "x" }, { q: "x", k: 2 })).toBe(false);
    expect(matchesPartial({ a: { b: 1, c: 2 } }, { a: { b: 1 } })).toBe(true);
    expect(matchesPartial({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(matchesPartial({ a: 1, b: 2 }, { a: 1, b: undefined })).toBe(true);
    fc.assert(
      fc.property(fc.dictionary(fc.string(), data), fc.dictionary(fc.string(), data), (part, rest) => {
        expect(matchesPartial({ ...rest, ...part }, part)).toBe(true);
      }),
    );
  });

  it("needs an object where it expects one", () => {
    expect(matchesPartial(null, { a: 1 })).toBe(false);
    expect(matchesPartial("a", { length: 1 })).toBe(false);
    expect(matchesPartial([1], { 0: 1 })).toBe(false);
    expect(matchesPartial({}, {})).toBe(true);
  });

  it("matches arrays element by element, of the same length", () => {
    expect(matchesPartial([{ a: 1, b: 2 }, 3], [{ a: 1 }, 3])).toBe(true);
    expect(matchesPartial([{ a: 1 }, 3], [{ a: 1 }, 4])).toBe(false);
    expect(matchesPartial([1, 2, 3], [1, 2])).toBe(false);
    expect(matchesPartial([9, 2], [1, 2])).toBe(false);
    expect(matchesPartial({ 0: 1 }, [1])).toBe(false);
    expect(matchesPartial([], [])).toBe(true);
  });

  it("lets a RegExp match a string and a function decide", () => {
    expect(matchesPartial({ path: "src/a.ts" }, { path: /\.ts$/ })).toBe(true);
    expect(matchesPartial({ path: "src/a.js" }, { path: /\.ts$/ })).toBe(false);
    expect(matchesPartial({ path: 1 }, { path: /1/ })).toBe(false);
    const sticky = /a/g;
    expect(matchesPartial("a", sticky)).toBe(true);
    expect(matchesPartial("a", sticky)).toBe(true);
    expect(matchesPartial({ n: 5 }, { n: (value: unknown) => typeof value === "number" && value > 3 })).toBe(true);
    expect(matchesPartial({ n: 2 }, { n: (value: unknown) => typeof value === "number" && value > 3 })).toBe(false);
  });

  it("compares dates, maps, sets and typed arrays whole", () => {
    expect(matchesPartial({ when: new Date(5) }, { when: new Date(5) })).toBe(true);
    expect(matchesPartial({ when: new Date(5) }, { when: new Date(6) })).toBe(false);
    expect(matchesPartial(new Map([["a", 1], ["b", 2]]), new Map([["a", 1]]))).toBe(false);
    expect(matchesPartial(new Set([1, 2]), new Set([1]))).toBe(false);
    expect(matchesPartial(new Uint8Array([1, 2]), new Uint8Array([1]))).toBe(false);
    expect(matchesPartial(new Number(1), new Number(2))).toBe(false);
    expect(matchesPartial(new String("ab"), new String("a"))).toBe(false);
    expect(matchesPartial(new Boolean(true), new Boolean(false))).toBe(false);
  });

  it("compares other values by Object.is", () => {
    expect(matchesPartial(0, -0)).toBe(false);
    expect(matchesPartial("1", 1)).toBe(false);
    expect(matchesPartial(null, null)).toBe(true);
  });
});

suite("matchesArgs", () => {
  it("ignores arguments when told to or when none are expected, else compares strictly or partially", () => {
    expect(matchesArgs({ q: "x" }, { q: "y" }, "ignore")).toBe(true);
    expect(matchesArgs({ q: "x" }, undefined, "strict")).toBe(true);
    expect(matchesArgs({ q: "x", k: 1 }, { q: "x" }, "strict")).toBe(false);
    expect(matchesArgs({ q: "x", k: 1 }, { q: "x" }, "partial")).toBe(true);
    expect(matchesArgs({ q: "x" }, { q: "x" }, "strict")).toBe(true);
  });
});

suite("describe", () => {
  it("shows a string as JSON, clipped", () => {
    expect(describe('say "hi"')).toBe('"say \\"hi\\""');
    expect(describe("x".repeat(10), 5)).toBe('"xxxx…"');
  });

  it("shows data as JSON with sorted keys, clipped", () => {
    expect(describe({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(describe({ long: "y".repeat(200) }, 12)).toBe('{"long":"yy…');
    expect(describe([3, 1])).toBe("[3,1]");
    expect(describe(42)).toBe("42");
    expect(describe(null)).toBe("null");
    expect(describe({ a: null, b: [null] })).toBe('{"a":null,"b":[null]}');
  });

  it("shows undefined, regular expressions, dates, maps and sets by what they are", () => {
    expect(describe(undefined)).toBe("undefined");
    expect(describe(/a+b/gi)).toBe("/a+b/gi");
    expect(describe(new Date(0))).toBe('"Date(1970-01-01T00:00:00.000Z)"');
    expect(describe(new Date(Number.NaN))).toBe('"Invalid Date"');
    expect(describe(new Map<unknown, unknown>([["k", { b: 1, a: 2 }], [{ y: 1, x: 2 }, "v"]]))).toBe('{"Map":[["k",{"a":2,"b":1}],[{"x":2,"y":1},"v"]]}');
    expect(describe(new Set([{ b: 1, a: 2 }]))).toBe('{"Set":[{"a":2,"b":1}]}');
  });

  it("falls back to String for what JSON cannot write", () => {
    expect(describe(10n)).toBe("10");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describe(cyclic)).toBe("[object Object]");
    expect(describe(() => 1)).toBe("() => 1");
  });
});

suite("clip", () => {
  it("flattens whitespace, trims, and cuts long text to max characters ending in …", () => {
    expect(clip("  a \n\t b  ")).toBe("a b");
    expect(clip("abcdef", 6)).toBe("abcdef");
    expect(clip("abcdefg", 6)).toBe("abcde…");
    expect(clip("a".repeat(121))).toBe(`${"a".repeat(119)}…`);
    expect(clip("a".repeat(120))).toBe("a".repeat(120));
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 30 }), (text, max) => {
        expect(clip(text, max).length).toBeLessThanOrEqual(max);
      }),
    );
  });
});

suite("describeCall and describeCalls", () => {
  it("show a call's name, arguments and outcome", () => {
    expect(describeCall(call({}))).toBe('search({"q":"x"}) finished');
    expect(describeCall(call({ args: undefined }))).toBe("search({}) finished");
    expect(describeCall(call({ args: undefined, rawArgs: '{"q":' }))).toBe('search({"q":) finished');
    expect(describeCall(call({ status: "blocked", blocked: { reason: "policy_denied", detail: "no" } }))).toBe('search({"q":"x"}) blocked: policy_denied');
    expect(describeCall(call({ status: "failed", error: { kind: "threw", message: "boom" } }))).toBe('search({"q":"x"}) failed: threw');
    expect(describeCall(call({ status: "pending" }))).toBe('search({"q":"x"}) pending');
    expect(describeCall(call({ status: "failed" }))).toBe('search({"q":"x"}) failed');
    expect(describeCall(call({ status: "finished", error: { kind: "threw", message: "x" }, blocked: { reason: "guardrail", detail: "x" } }))).toBe(
      'search({"q":"x"}) finished',
    );
    expect(describeCall(call({ args: { text: "z".repeat(100) } }))).toBe(`search({"text":"${"z".repeat(70)}…) finished`);
  });

  it("list calls with ; up to a maximum, then say how many more", () => {
    expect(describeCalls([])).toBe("none");
    const calls = [1, 2, 3, 4].map((n) => call({ name: `t${n}`, args: {} }));
    expect(describeCalls(calls)).toBe("t1({}) finished; t2({}) finished; t3({}) finished; t4({}) finished");
    expect(describeCalls(calls, 4)).toBe("t1({}) finished; t2({}) finished; t3({}) finished; t4({}) finished");
    expect(describeCalls(calls, 2)).toBe("t1({}) finished; t2({}) finished; … 2 more");
    expect(describeCalls(Array.from({ length: 7 }, () => call({ args: {} })))).toMatch(/; … 1 more$/);
  });
});

suite("normaliseText", () => {
  it("changes nothing by default", () => {
    expect(normaliseText("  A  b ", {})).toBe("  A  b ");
    expect(normaliseText("  A  b ", { caseSensitive: true })).toBe("  A  b ");
  });

  it("trims and collapses whitespace runs to one space with trim, and lower-cases when not case-sensitive", () => {
    expect(normaliseText("  A \n\t b  c ", { trim: true })).toBe("A b c");
    expect(normaliseText("Hello World", { caseSensitive: false })).toBe("hello world");
    expect(normaliseText(" Hello   World ", { trim: true, caseSensitive: false })).toBe("hello world");
  });
});

suite("toRegExp", () => {
  it("copies a RegExp, keeping its flags unless others are given", () => {
    const original = /total: (\d+)/gi;
    const copy = toRegExp(original);
    expect(copy).not.toBe(original);
    expect([copy.source, copy.flags]).toEqual([original.source, "gi"]);
    expect(toRegExp(original, "m").flags).toBe("m");
    expect(toRegExp(original, "").flags).toBe("");
  });

  it("compiles a pattern string, with the flags given or none", () => {
    expect(toRegExp("a+b").test("xaab")).toBe(true);
    expect(toRegExp("a+b").test("x")).toBe(false);
    expect(toRegExp("a+b").flags).toBe("");
    expect(toRegExp("A", "i").test("a")).toBe(true);
  });

  it("refuses anything else, saying what it got", () => {
    expect(() => toRegExp(42)).toThrow(new TypeError("expected a RegExp or a pattern string, got 42"));
  });
});

suite("asText", () => {
  it("is the text a scorer reads from any value", () => {
    expect(asText("as is")).toBe("as is");
    expect(asText(undefined)).toBe("");
    expect(asText(null)).toBe("");
    expect(asText(4.5)).toBe("4.5");
    expect(asText(Number.NaN)).toBe("NaN");
    expect(asText(Number.NEGATIVE_INFINITY)).toBe("-Infinity");
    expect(asText(false)).toBe("false");
    expect(asText({ a: [1] })).toBe('{"a":[1]}');
    expect(asText(() => 1)).toBe("");
  });
});

suite("plural", () => {
  it("adds an s unless the count is one", () => {
    expect(plural(1, "time")).toBe("1 time");
    expect(plural(0, "time")).toBe("0 times");
    expect(plural(2, "call")).toBe("2 calls");
  });
});
