import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortKeys } from "../../src/canonical/index.js";

describe("sortKeys", () => {
  it("orders keys exactly as Array.prototype.sort does (by UTF-16 code unit), short lists and long", () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 4 }), fc.constantFrom("10", "7", "__proto__", "a", "B", "\u{1F600}", "\uFFFF"));
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 48 }), (keys) => {
        expect(sortKeys([...keys])).toStrictEqual([...keys].sort());
      }),
      { numRuns: 500 },
    );
  });
});
