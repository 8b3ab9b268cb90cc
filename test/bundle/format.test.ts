/**
 * The bytes of a bundle depend only on its content: sorted entries, mode 0644, uid/gid 0, no
 * owner names, mtime 0, and no time or OS byte in the gzip header. The entry-name rule and
 * the depth scan that guard loading hold for any input.
 */
import { readFileSync } from "node:fs";
import { join, posix, win32 } from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Header } from "tar";
import { entryNameProblem, jsonDepthExceeds } from "../../src/bundle/format.js";
import { BUNDLES } from "./scenarios.js";

describe("a bundle's bytes", () => {
  const bytes = readFileSync(join(BUNDLES, "parallel-sub-agent.tgz"));

  it("have a gzip header with no time and the unknown OS", () => {
    expect([...bytes.subarray(0, 4)]).toEqual([0x1f, 0x8b, 0x08, 0x00]);
    expect(bytes.readUInt32LE(4)).toBe(0);
    expect(bytes[9]).toBe(0xff);
  });

  it("hold regular files in name order, mode 0644, owned by 0:0 with no names, at mtime 0", () => {
    const tar = gunzipSync(bytes);
    const names: string[] = [];
    for (let offset = 0; offset + 512 <= tar.length; ) {
      const header = new Header(tar, offset);
      if (header.nullBlock) break;
      expect(header).toMatchObject({ type: "File", mode: 0o644, uid: 0, gid: 0, uname: "", gname: "" });
      expect(header.mtime?.getTime()).toBe(0);
      names.push(header.path as string);
      offset += 512 + Math.ceil((header.size ?? 0) / 512) * 512;
    }
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["events.jsonl", "input.json", "manifest.json", "files/agent.yaml", "files/researcher.yaml"]));
  });
});

describe("entry names", () => {
  it("any name the rule accepts stays inside the folder it is unpacked in", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom("a", ".", "/", "\\", ":", "-", "_", "C", " ", "\0", "é") }), (name) => {
        if (entryNameProblem(name) !== undefined) return;
        expect(posix.normalize(name)).toBe(name);
        expect(posix.resolve("/unpack/here", name).startsWith("/unpack/here/")).toBe(true);
        expect(win32.resolve("C:\\unpack\\here", name).startsWith("C:\\unpack\\here\\")).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the depth scan", () => {
  const nested = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), tie("value"), { maxKeys: 3 })),
  })).value;
  const depth = (value: unknown): number =>
    Array.isArray(value) ? 1 + Math.max(0, ...value.map(depth)) : value !== null && typeof value === "object" ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;

  it("agrees with the real nesting of any JSON, brackets inside strings included", () => {
    fc.assert(
      fc.property(nested, fc.nat(8), (value, limit) => {
        expect(jsonDepthExceeds(JSON.stringify(value), limit)).toBe(depth(value) > limit);
      }),
      { numRuns: 500 },
    );
  });

  it("agrees when strings are full of quotes, backslashes and brackets (the scan jumps over strings)", () => {
    const tricky = fc.string({ unit: fc.constantFrom('"', "\\", "[", "]", "{", "}", "a"), maxLength: 12 });
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, tricky, fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(tricky, tie("value"), { maxKeys: 3 })),
    })).value;
    fc.assert(
      fc.property(value, fc.nat(6), (item, limit) => {
        expect(jsonDepthExceeds(JSON.stringify(item), limit)).toBe(depth(item) > limit);
      }),
      { numRuns: 500 },
    );
  });
});
