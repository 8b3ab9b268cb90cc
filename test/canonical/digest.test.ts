import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, digest, frozenDigest, sha256 } from "../../src/canonical/index.js";

describe("sha256", () => {
  it("is the standard SHA-256, in lower-case hex", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("hashes bytes and the same text as UTF-8 alike", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        expect(sha256(new TextEncoder().encode(text))).toBe(sha256(text));
        expect(sha256(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
    );
  });

  it("hashes any text (lone surrogates too) as a Hash object does", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(sha256(text)).toBe(createHash("sha256").update(text).digest("hex"));
      }),
    );
  });

  it("gives different texts different digests", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(sha256(a)).not.toBe(sha256(b));
      }),
    );
  });
});

describe("digest", () => {
  it("is the sha256 of the value's canonical JSON", () => {
    expect(digest({ b: 2, a: 1 })).toBe(sha256('{"a":1,"b":2}'));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(digest(value)).toBe(sha256(canonicalJson(value)));
        expect(digest(value)).toMatch(/^[0-9a-f]{64}$/);
      }),
    );
  });

  it("gives values with different canonical JSON different digests", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(digest(a)).not.toBe(digest(b));
      }),
    );
  });
});

describe("frozenDigest", () => {
  it("is the digest of the value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        expect(frozenDigest(value)).toBe(digest(value));
      }),
    );
  });

  it("remembers the digest by identity: a second call does not hash again", () => {
    const tools = [{ name: "search", description: "Searches." }];
    const first = frozenDigest(tools);
    // As documented, a value changed after its first digest keeps that digest: proof it was not hashed again.
    tools.push({ name: "write", description: "Writes." });
    expect(frozenDigest(tools)).toBe(first);
    expect(frozenDigest([...tools])).toBe(digest(tools));
  });
});
