/**
 * Policy globs are matched by a linear-time simulation (globMatches), not a backtracking RegExp.
 * It must agree with the glob syntax of patterns/globToRegExp everywhere, and run in time
 * proportional to text × pattern on shapes that make a RegExp backtrack.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globToRegExp } from "../../src/patterns/index.js";
import { globMatches } from "../../src/policy/index.js";
import { relativePath } from "../../src/policy/match.js";

const globArb = fc.array(fc.constantFrom("a", "b", "/", "*", "**", "**/", "?", ".", "😀"), { maxLength: 7 }).map((parts) => parts.join(""));
const textArb = fc.array(fc.constantFrom("a", "b", "/", ".", "😀", "ab"), { maxLength: 8 }).map((parts) => parts.join(""));

describe("globMatches", () => {
  it("agrees with globToRegExp on every glob and text", () => {
    fc.assert(
      fc.property(globArb, textArb, (glob, text) => {
        expect(globMatches(glob, text)).toBe(globToRegExp(glob).test(text));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["*.md", "guide.md", true],
    ["*.md", "docs/guide.md", false],
    ["docs/*", "docs/", true],
    ["v?.txt", "v1.txt", true],
    ["v?.txt", "v/.txt", false],
    ["v?.txt", "v😀.txt", true],
    ["**/.env", ".env", true],
    ["**/.env", "a/b/.env", true],
    ["**/.env", "a.env", false],
    ["config/**", "config/a/b", true],
    ["config/**", "config", false],
    ["a**", "ab/c", true],
    ["**", "", true],
    ["", "", true],
    ["", "a", false],
    ["a", "", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a/**/b", "a/xb", false],
    ["*/b", "a/b", true],
    ["*/b", "a/c/b", false],
    ["**/", "a/b/", true],
  ])("%s matches %s: %s", (glob, text, expected) => {
    expect(globMatches(glob, text)).toBe(expected);
  });

  it("gives the same answer again from its cache", () => {
    expect(globMatches("notes/*", "notes/a")).toBe(true);
    expect(globMatches("notes/*", "notes/a/b")).toBe(false);
    expect(globMatches("notes/*", "notes/a")).toBe(true);
  });

  it("fails a long argument against a backtracking shape without backtracking", () => {
    const glob = "*a*a*a*a*a*a*a*a*b";
    const text = "a".repeat(20_000);
    expect(globMatches(glob, text)).toBe(false);
    expect(globMatches(glob, `${text}b`)).toBe(true);
  });
});

describe("relativePath", () => {
  const root = "/srv/ws";

  it("reads a path inside the folder relative to it, however it is written", () => {
    for (const value of ["config/a", "./config/a", "config//a", "x/../config/a", "config/a/", "config\\a", `${root}/config/a`, `${root}//config/./a`]) {
      expect(relativePath(value, root), value).toEqual({ text: "config/a", escapes: false });
    }
  });

  it("reads the folder itself as .", () => {
    for (const value of [root, `${root}/`, ".", "./", "a/.."]) expect(relativePath(value, root), value).toEqual({ text: ".", escapes: false });
    expect(relativePath(`${root}/a`, `${root}/`)).toEqual({ text: "a", escapes: false });
    expect(relativePath(root, `${root}/`)).toEqual({ text: ".", escapes: false });
  });

  it("flags a path that leaves the folder, or holds a NUL", () => {
    expect(relativePath("..", root)).toEqual({ text: "..", escapes: true });
    expect(relativePath("../x", root)).toEqual({ text: "../x", escapes: true });
    expect(relativePath("a/../../x", root)).toEqual({ text: "../x", escapes: true });
    expect(relativePath("/etc/passwd", root)).toEqual({ text: "/etc/passwd", escapes: true });
    expect(relativePath(`${root}x/config`, root)).toEqual({ text: `${root}x/config`, escapes: true });
    expect(relativePath("a\0b", root)).toEqual({ text: "a\0b", escapes: true });
    expect(relativePath("..x", root)).toEqual({ text: "..x", escapes: false });
  });

  it("compares an absolute path as written when the tool has no folder", () => {
    expect(relativePath("/etc/passwd", undefined)).toEqual({ text: "/etc/passwd", escapes: false });
    expect(relativePath("/", undefined)).toEqual({ text: "/", escapes: false });
    expect(relativePath("/etc/", undefined)).toEqual({ text: "/etc", escapes: false });
  });
});
