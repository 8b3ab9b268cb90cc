/**
 * The log checks and writes an event as given when its JSON text shows the redaction would
 * change nothing (Redactor.cleanJson), and redacts first otherwise. That is sound only if the
 * text test never says "clean" of a value the redaction changes: every string (key or value)
 * holding a known secret or credential-looking text must show in the text, whatever JSON
 * escapes around it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RunLog } from "../../src/store/index.js";
import { MemoryRunStore } from "../../src/store/memory-store.js";
import { manualClock } from "../../src/context/index.js";
import { REDACTION, createRedactor, eventRedactor, redactsNothingIn } from "../../src/redaction/index.js";

const secrets = ["s3cr3t-value", 'quote"d\\back', "tab\there", "line\nbreak", "\u0001ctl"];
const pieces = fc.oneof(
  fc.string(),
  fc.constantFrom(...secrets, "sk-abcdefghijklmnop1234", "AKIAIOSFODNN7EXAMPLE", "Bearer\tabcdefghijklmnopqrstu", "Bearer\nabcdefghijklmnopqrstu", "ghp_abcdefghijklmnopqrstuvwxyz", "-----BEGIN "),
  fc.constantFrom('"', "\\", "\n", "\u2028", "\ud83d", "\ude00", "\u0000"),
);
const text = fc.array(pieces, { maxLength: 6 }).map((parts) => parts.join(""));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(text, tie("node"), { maxKeys: 4 })),
})).node;

describe("whether an event's JSON text shows it holds nothing to redact", () => {
  it("never says clean of a value the redaction changes (known secrets and patterns, keys and values, escaped or not)", () => {
    for (const settings of [{ secrets }, { secrets, patterns: false }, {}]) {
      const redactor = createRedactor(settings);
      fc.assert(
        fc.property(value, (input) => {
          if (redactor.cleanJson(JSON.stringify(input))) expect(redactor.value(input)).toBe(input);
        }),
        { numRuns: 3000 },
      );
    }
  });

  it("says clean of ordinary text, and looks string by string when a secret holds a surrogate", () => {
    expect(createRedactor({ secrets }).cleanJson(JSON.stringify({ answer: "The answer is 13", when: "2026-01-01T00:00:00.000Z" }))).toBe(true);
    expect(createRedactor({ secrets: ["key\ud83d"] }).cleanJson("{}")).toBe(false);
  });

  it("is known for the log's own redactions only: a caller's own always runs", () => {
    expect(redactsNothingIn(eventRedactor({ secrets }))).toBeTypeOf("function");
    expect(redactsNothingIn((payload) => payload)).toBeUndefined();
  });
});

describe("a log that writes events as given when their text is clean", () => {
  it("stores what redacting every event first stores", () => {
    const redact = eventRedactor({ secrets: ["s3cr3t-value"] });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), (contents) => {
        const write = (options: { redact: typeof redact }) => {
          const store = new MemoryRunStore();
          const log = RunLog.create("run_1", store, manualClock(0, 1), options);
          log.appendAll(contents.map((content) => ({ type: "message" as const, role: "user" as const, content })));
          return store.readRaw("run_1");
        };
        // The same redaction, wrapped: the log does not know it, so it redacts every event first.
        const stored = write({ redact });
        expect(stored).toEqual(write({ redact: (payload) => redact(payload) }));
        for (const body of stored) expect(body).not.toContain("s3cr3t-value");
      }),
      { numRuns: 500 },
    );
    const store = new MemoryRunStore();
    RunLog.create("run_2", store, manualClock(0, 1), { redact }).append({ type: "message", role: "user", content: "key s3cr3t-value and sk-abcdefghijklmnopqrstu" });
    expect(store.read("run_2")[0]).toMatchObject({ content: `key ${REDACTION} and ${REDACTION}` });
  });
});
