import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextAt, parseRetryAfterMs, providerMessageOf, type JsonPath } from "../../src/providers/http/index.js";
import { scrubSecrets } from "../../src/redaction/index.js";

describe("retry-after parsing", () => {
  const headers = (values: Record<string, string>) => new Headers(values);
  const now = () => Date.parse("2026-01-01T00:00:00Z");

  it("reads seconds, fractional seconds and milliseconds", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "3" }))).toBe(3000);
    expect(parseRetryAfterMs(headers({ "retry-after": "0.5" }))).toBe(500);
    expect(parseRetryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(250);
  });

  it("turns an HTTP date into a delay, never negative", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).toBe(30_000);
    expect(parseRetryAfterMs(headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
    expect(parseRetryAfterMs(headers({}))).toBeUndefined();
    expect(parseRetryAfterMs(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfterMs(headers({ "retry-after-ms": "-5" }))).toBeUndefined();
  });
});

describe("secrets and provider messages", () => {
  it("removes keys and bearer tokens from text", () => {
    const key = "sk-live-ABCDEFGH12345678";
    expect(scrubSecrets(`bad key ${key} (${key})`, [key])).toBe("bad key [redacted] ([redacted])");
    expect(scrubSecrets("Authorization: Bearer abc.def-123", [])).toBe("Authorization: Bearer [redacted]");
  });

  it("finds the explanation in every common error body dialect", () => {
    expect(providerMessageOf({ error: { message: "openai style" } })).toBe("openai style");
    expect(providerMessageOf({ type: "error", error: { type: "x", message: "anthropic style" } })).toBe("anthropic style");
    expect(providerMessageOf({ object: "error", message: "vllm style" })).toBe("vllm style");
    expect(providerMessageOf({ error: "ollama style" })).toBe("ollama style");
    expect(providerMessageOf({ detail: [{ loc: ["body"], msg: "fastapi style" }] })).toContain("fastapi style");
    expect(providerMessageOf("<html>\n  Bad   gateway\n</html>")).toBe("<html> Bad gateway </html>");
    expect(providerMessageOf({})).toBeUndefined();
  });
});

describe("the text of a value inside a JSON document", () => {
  /** Every path into a value, with the value found there. */
  function paths(value: unknown, prefix: JsonPath = []): [JsonPath, unknown][] {
    const here: [JsonPath, unknown][] = [[prefix, value]];
    if (Array.isArray(value)) return [...here, ...value.flatMap((item, index) => paths(item, [...prefix, index]))];
    if (value !== null && typeof value === "object") {
      return [...here, ...Object.entries(value).flatMap(([key, item]) => paths(item, [...prefix, key]))];
    }
    return here;
  }

  it("finds every value's own text, whatever the spacing, and it parses to that value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, "\t", " \r\n "), (value, indent) => {
        const document = JSON.stringify(value, null, indent);
        for (const [path, expected] of paths(JSON.parse(document))) {
          const text = jsonTextAt(document, path);
          expect(text).toBeDefined();
          expect(JSON.parse(text!)).toEqual(expected);
          expect(text).toBe(text!.trim());
        }
      }),
    );
  });

  it("keeps number spellings, takes the last of duplicate keys as JSON.parse does, and misses absent paths", () => {
    const document = '{"a": {"x": 1.0, "y": [1E+2, 12345678901234567890]}, "s": "]}\\"{", "a": {"x": 2.50}}';
    expect(jsonTextAt(document, ["a", "x"])).toBe("2.50");
    expect(jsonTextAt(document, ["s"])).toBe('"]}\\"{"');
    expect(jsonTextAt('{"y": [1E+2, 12345678901234567890]}', ["y", 1])).toBe("12345678901234567890");
    expect(jsonTextAt(document, ["b"])).toBeUndefined();
    expect(jsonTextAt(document, ["a", 0])).toBeUndefined();
    expect(jsonTextAt("[]", [0])).toBeUndefined();
    expect(jsonTextAt("{}", ["a"])).toBeUndefined();
  });
});
