/** An event's `at` is exactly what `new Date(ms).toISOString()` gives, in any order of times. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "../../src/journal/index.js";

const MAX = 8.64e15;
const inRange = fc.oneof(
  fc.integer({ min: -MAX, max: MAX }),
  // Around day, year and range edges, where the kept day must be made again.
  fc.integer({ min: -3, max: 3 }).chain((offset) => fc.constantFrom(0, 86_400_000, Date.UTC(2026, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, -86_400_000, MAX, -MAX).map((edge) => Math.max(-MAX, Math.min(MAX, edge + offset)))),
);

function dateText(ms: number): string {
  try {
    return new Date(ms).toISOString();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

function ours(ms: number): string {
  try {
    return isoTime(ms);
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

describe("an event's time as text", () => {
  it("is toISOString's text for every time Date can hold, whatever came before", () => {
    fc.assert(
      fc.property(fc.array(inRange, { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(ours(ms)).toBe(dateText(ms));
      }),
      { numRuns: 500 },
    );
  });

  it("is toISOString's for a fraction, and its RangeError for NaN, infinities and times out of range", () => {
    for (const ms of [1.5, -0.5, 1767225600000.999, Number.NaN, Infinity, -Infinity, MAX + 1, -MAX - 1, 2 ** 53]) expect(ours(ms)).toBe(dateText(ms));
    expect(ours(Date.UTC(2026, 0, 1, 12, 3, 4, 5))).toBe("2026-01-01T12:03:04.005Z");
    // A fraction within the day already kept (a clock that steps by half a millisecond): found in review.
    expect(ours(Date.UTC(2026, 0, 1) + 0.5)).toBe(dateText(Date.UTC(2026, 0, 1) + 0.5));
  });
});
