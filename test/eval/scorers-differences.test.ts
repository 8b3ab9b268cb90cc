/** How a failed comparison says where the values differ: the path and both values there. */
import fc from "fast-check";
import { describe as suite, expect, it } from "vitest";
import { viewRun } from "../../src/journal/index.js";
import { builtinAssertions } from "../../scorers/assertions.js";
import { includesScorer } from "../../scorers/index.js";
import { includesProblem } from "../../scorers/includes.js";
import { deepEqual, describeDifferences, differences, matchesPartial, textDifference } from "../../scorers/support.js";

const data = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);

suite("differences", () => {
  it("is empty exactly when the values are equal (strict) or the expected part matches (partial)", () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        expect(differences(a, b).length === 0).toBe(deepEqual(a, b));
        expect(differences(a, b, "partial").length === 0).toBe(matchesPartial(b, a));
        expect(differences(a, structuredClone(a))).toEqual([]);
      }),
    );
  });

  it("names the path of each difference, with both values", () => {
    expect(differences({ user: { name: "Ann", age: 30 } }, { user: { name: "Ann", age: 31 } })).toEqual([{ path: "user.age", expected: 30, actual: 31 }]);
    expect(differences({ items: [1, 2, 3] }, { items: [1, 9, 3] })).toEqual([{ path: "items[1]", expected: 2, actual: 9 }]);
    expect(differences([[1], [2]], [[1], [3]])).toEqual([{ path: "[1][0]", expected: 2, actual: 3 }]);
    expect(differences({ "a-b": 1, "x y": { z: 1 } }, { "a-b": 2, "x y": { z: 2 } })).toEqual([
      { path: '["a-b"]', expected: 1, actual: 2 },
      { path: '["x y"].z', expected: 1, actual: 2 },
    ]);
    expect(differences({ o: { "x y": 1 } }, { o: { "x y": 2 } })).toEqual([{ path: 'o["x y"]', expected: 1, actual: 2 }]);
    expect(differences(1, 2)).toEqual([{ path: "(root)", expected: 1, actual: 2 }]);
    expect(differences({ a: 1 }, [1])).toEqual([{ path: "(root)", expected: { a: 1 }, actual: [1] }]);
  });

  it("says when a key or an item is missing, or one is there that should not be", () => {
    expect(differences({ a: 1, b: 2 }, { a: 1 })).toEqual([{ path: "b", expected: 2, actual: "(missing)" }]);
    expect(differences({ a: 1, b: 2 }, { a: 1, b: undefined })).toEqual([{ path: "b", expected: 2, actual: "(missing)" }]);
    expect(differences({ a: 1 }, { a: 1, b: 2 })).toEqual([{ path: "b", expected: "(no such key)", actual: 2 }]);
    expect(differences({ a: 1, c: undefined }, { a: 1, c: undefined })).toEqual([]);
    expect(differences({ a: 1, c: undefined }, { a: 2, c: undefined })).toEqual([{ path: "a", expected: 1, actual: 2 }]);
    expect(differences([1, 2, 3], [1, 2])).toEqual([{ path: "[2]", expected: 3, actual: "(missing: the array is shorter)" }]);
    expect(differences([1, 2], [1, 2, 3])).toEqual([{ path: "[2]", expected: "(nothing: the array is longer)", actual: 3 }]);
  });

  it("in partial mode, compares only what the expected value names", () => {
    expect(differences({ a: 1 }, { a: 1, b: 2 }, "partial")).toEqual([]);
    expect(differences({ a: 1 }, { a: 2, b: 2 }, "partial")).toEqual([{ path: "a", expected: 1, actual: 2 }]);
    expect(differences([1, 2], [1, 2, 3], "partial")).toEqual([{ path: "[2]", expected: "(nothing: the array is longer)", actual: 3 }]);
    expect(differences({ q: /x/ }, { q: "abc" }, "partial")).toEqual([{ path: "q", expected: /x/, actual: "abc" }]);
    expect(differences({ q: /x/ }, { q: "xyz" }, "partial")).toEqual([]);
    expect(differences({ q: /x/, k: 1 }, { q: "xyz", k: 2 }, "partial")).toEqual([{ path: "k", expected: 1, actual: 2 }]);
  });

  it("compares dates, maps and sets whole, at their own path", () => {
    expect(differences({ when: new Date(1) }, { when: new Date(2) })).toEqual([{ path: "when", expected: new Date(1), actual: new Date(2) }]);
    expect(differences(new Set([1]), new Set([2]))).toEqual([{ path: "(root)", expected: new Set([1]), actual: new Set([2]) }]);
    class Box {
      constructor(readonly v: number) {}
    }
    expect(differences({ b: new Box(1) }, { b: new Box(2) })).toEqual([{ path: "b", expected: new Box(1), actual: new Box(2) }]);
  });

  it("stops at the number of differences asked for, three by default", () => {
    const many = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    const other = { a: 0, b: 0, c: 0, d: 0, e: 0 };
    expect(differences(many, other).map((item) => item.path)).toEqual(["a", "b", "c"]);
    expect(differences(many, other, "strict", 1).map((item) => item.path)).toEqual(["a"]);
    expect(differences(many, other, "strict", 5)).toHaveLength(5);
    expect(differences({ a: 1, b: 2, c: 3 }, {}, "strict", 1)).toEqual([{ path: "a", expected: 1, actual: "(missing)" }]);
    expect(differences({}, { a: 1, b: 2 }, "strict", 1)).toEqual([{ path: "a", expected: "(no such key)", actual: 1 }]);
    expect(differences([1, 2, 3, 4], [0, 0, 0, 0], "strict", 2).map((item) => item.path)).toEqual(["[0]", "[1]"]);
    expect(differences([1], [0, 5, 6], "strict", 2).map((item) => item.path)).toEqual(["[0]", "[1]"]);
  });
});

suite("describeDifferences", () => {
  it("writes each difference as 'at path: expected x, got y', keeping the (missing) words as they are", () => {
    expect(
      describeDifferences([
        { path: "a", expected: 1, actual: "x" },
        { path: "b", expected: 2, actual: "(missing)" },
        { path: "c", expected: "(no such key)", actual: { d: 1 } },
      ]),
    ).toBe('at a: expected 1, got "x"; at b: expected 2, got (missing); at c: expected (no such key), got {"d":1}');
    expect(describeDifferences([])).toBe("");
    expect(describeDifferences([{ path: "p", expected: "(open", actual: "close)" }])).toBe('at p: expected "(open", got "close)"');
  });
});

suite("textDifference", () => {
  it("says at which character two texts first differ, with a little of each around it", () => {
    expect(textDifference("Lisbon", "Lisboa")).toBe('first difference at character 5: expected "Lisbon", got "Lisboa"');
    expect(textDifference("abc", "abcd")).toBe('first difference at character 3: expected "abc", got "abcd"');
    const long = "x".repeat(30);
    expect(textDifference(`${long}A${long}${long}`, `${long}B${long}${long}`)).toBe(
      `first difference at character 30: expected "…${"x".repeat(20)}A${"x".repeat(39)}…", got "…${"x".repeat(20)}B${"x".repeat(39)}…"`,
    );
    expect(textDifference(`A${"x".repeat(39)}`, `B${"x".repeat(39)}`)).toBe(`first difference at character 0: expected "A${"x".repeat(39)}", got "B${"x".repeat(39)}"`);
    expect(textDifference(`A${"x".repeat(40)}`, "B")).toBe(`first difference at character 0: expected "A${"x".repeat(39)}…", got "B"`);
    expect(textDifference(`${"y".repeat(20)}A`, `${"y".repeat(20)}B`)).toBe(`first difference at character 20: expected "${"y".repeat(20)}A", got "${"y".repeat(20)}B"`);
    expect(textDifference(`${"y".repeat(21)}A`, `${"y".repeat(21)}B`)).toBe(`first difference at character 21: expected "…${"y".repeat(20)}A", got "…${"y".repeat(20)}B"`);
  });
});

suite("includesProblem", () => {
  it("refuses an expected value that checks nothing, and accepts any other", () => {
    expect(includesProblem(undefined)).toBe("includes needs the text (or item) to look for, got undefined");
    expect(includesProblem(null)).toBe("includes needs the text (or item) to look for, got null");
    expect(includesProblem("")).toBe('includes("") checks nothing: every text contains the empty string; give the text to look for');
    expect(includesProblem([])).toBe("includes([]) checks nothing: give at least one text (or item) to look for");
    expect(includesProblem(["a", ""])).toBe('includes: item 1 is "", which checks nothing');
    expect(includesProblem(["a", "b", null])).toBe("includes: item 2 is null, which checks nothing");
    expect(includesProblem([undefined])).toBe("includes: item 0 is undefined, which checks nothing");
    for (const ok of ["a", ["a", "b"], 0, { x: 1 }, [0]]) expect(includesProblem(ok)).toBeUndefined();
  });

  it("makes includes and outputContains refuse such a value rather than pass it", () => {
    const run = { case: { name: "c", file: undefined, tags: [] }, output: "", judge: undefined, options: {}, value: "any text" } as const;
    expect(() => includesScorer.score({ ...run, run: viewRun([]), expected: "" } as never)).toThrow(
      new TypeError('includes("") checks nothing: every text contains the empty string; give the text to look for'),
    );
    expect(() => includesScorer.score({ ...run, run: viewRun([]), expected: [] } as never)).toThrow(/includes\(\[\]\) checks nothing/);
    const sugar = builtinAssertions.outputContains as unknown as { check: (positional: unknown[]) => string | undefined };
    expect(sugar.check([""])).toBe('includes("") checks nothing: every text contains the empty string; give the text to look for');
    expect(sugar.check(["Lisbon"])).toBeUndefined();
  });
});
