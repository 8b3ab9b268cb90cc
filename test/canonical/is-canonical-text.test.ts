/**
 * isCanonicalTextOf is the cheap form of `canonicalJson(JSON.parse(text)) === text` that
 * loading a bundle (and appending foreign bytes) uses: it must give the same answer on every text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, isCanonicalTextOf } from "../../src/canonical/index.js";

const same = (text: string) => {
  const parsed = JSON.parse(text) as unknown;
  expect(isCanonicalTextOf(parsed, text)).toBe(canonicalJson(parsed) === text);
};

describe("isCanonicalTextOf", () => {
  it("agrees with canonicalJson on canonical texts, on JSON.stringify's texts and on texts with spaces", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        same(canonicalJson(value));
        same(JSON.stringify(value));
        same(JSON.stringify(value, null, 1));
      }),
      { numRuns: 500 },
    );
  });

  it("agrees on objects whose keys are numbers, __proto__, out of order or repeated", () => {
    const key = fc.oneof(fc.constantFrom("1", "9", "10", "01", "__proto__", "a", "B", "é", "-1", "1a"), fc.string());
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }), (entries) => {
        const text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
        same(text);
        same(`[${text},${text}]`);
      }),
      { numRuns: 500 },
    );
  });

  it("agrees on numbers JSON writes another way, and on escapes", () => {
    for (const text of ["-0", "1.0", "1e2", "100", '"\\u0041"', '"A"', '"\\ud800"', '{"a":-0}', '{"a":0}', `"${"x".repeat(70_000)}"`, `["${"\\n".repeat(40_000)}"]`]) same(text);
  });
});
