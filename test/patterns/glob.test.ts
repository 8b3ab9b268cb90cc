import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globBase, globToRegExp, hasGlob } from "../../src/patterns/index.js";

const matches = (pattern: string, path: string) => globToRegExp(pattern).test(path);

/** Text without glob characters: a path segment, possibly with the characters a regex treats specially. */
const literal = fc.string({ unit: fc.constantFrom("a", "b", ".", "-", "_", "/", "\\", "^", "$", "|", "+", "(", ")", "[", "]", "{", "}", "😀") });

describe("globToRegExp", () => {
  it("a pattern without * or ? matches exactly itself, regex characters included", () => {
    fc.assert(
      fc.property(literal, literal, (pattern, path) => {
        expect(matches(pattern, path)).toBe(pattern === path);
        expect(matches(pattern, pattern)).toBe(true);
      }),
    );
    expect(matches("notes.md", "notesXmd")).toBe(false);
    expect(matches("a+b", "aab")).toBe(false);
  });

  it("* matches any run of characters within one segment, the empty one included", () => {
    expect(matches("*.md", "guide.md")).toBe(true);
    expect(matches("*.md", ".md")).toBe(true);
    expect(matches("*.md", "docs/guide.md")).toBe(false);
    expect(matches("docs/*", "docs/guide.md")).toBe(true);
    expect(matches("docs/*", "docs/a/guide.md")).toBe(false);
    expect(matches("write_*", "write_file")).toBe(true);
    expect(matches("write_*", "read_file")).toBe(false);
  });

  it("? matches exactly one character of a segment, an emoji counting as one", () => {
    expect(matches("v?.txt", "v1.txt")).toBe(true);
    expect(matches("v?.txt", "v.txt")).toBe(false);
    expect(matches("v?.txt", "v12.txt")).toBe(false);
    expect(matches("a?b", "a/b")).toBe(false);
    expect(matches("a?b", "a😀b")).toBe(true);
  });

  it("**/ matches any number of whole segments, none included", () => {
    expect(matches("**/.env", ".env")).toBe(true);
    expect(matches("**/.env", "config/.env")).toBe(true);
    expect(matches("**/.env", "a/b/c/.env")).toBe(true);
    expect(matches("**/.env", "a/b.env")).toBe(false);
    expect(matches("src/**/*.ts", "src/index.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/a/b/index.ts")).toBe(true);
  });

  it("a trailing ** matches everything below, across segments", () => {
    expect(matches("config/**", "config/a")).toBe(true);
    expect(matches("config/**", "config/a/b/c.yaml")).toBe(true);
    expect(matches("config/**", "other/config/a")).toBe(false);
    expect(matches("**", "any/path/at/all")).toBe(true);
    expect(matches("a**", "ab/c")).toBe(true);
  });

  it("any path matches a pattern made from it by replacing one segment with *, or one character with ?", () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.nat(), (segments, pick) => {
        const path = segments.join("/");
        const at = pick % segments.length;
        expect(matches(segments.map((item, index) => (index === at ? "*" : item)).join("/"), path)).toBe(true);
        const chosen = segments[at] as string;
        const withQuestion = segments.map((item, index) => (index === at ? `?${chosen.slice(1)}` : item)).join("/");
        expect(matches(withQuestion, path)).toBe(true);
        expect(matches(`**/${segments[segments.length - 1]}`, path)).toBe(true);
      }),
    );
  });
});

describe("hasGlob", () => {
  it("is true exactly when the pattern holds * or ?", () => {
    expect(hasGlob("docs/*.md")).toBe(true);
    expect(hasGlob("docs/v?.md")).toBe(true);
    expect(hasGlob("docs/guide.md")).toBe(false);
    fc.assert(
      fc.property(literal, (text) => {
        expect(hasGlob(text)).toBe(false);
      }),
    );
  });
});

describe("globBase", () => {
  it("is the leading segments before the first one with a wildcard", () => {
    expect(globBase("docs/**/*.md")).toBe("docs");
    expect(globBase("docs/api/v?/*.md")).toBe("docs/api");
    expect(globBase("*.md")).toBe("");
    expect(globBase("/srv/docs/*.md")).toBe("/srv/docs");
  });

  it("is the whole pattern when nothing in it is a wildcard", () => {
    expect(globBase("docs/guide.md")).toBe("docs/guide.md");
  });

  it("is / for an absolute pattern whose first segment is a wildcard", () => {
    expect(globBase("/*.md")).toBe("/");
    expect(globBase("/**/x")).toBe("/");
  });
});
