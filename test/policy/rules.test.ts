/**
 * Policy rules and trust rules on their own: which rule a call matches, and how a rule reads in
 * a block reason. (The other files here drive the same rules through whole runs.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstMatch, globMatches, trusted, type PolicyRule } from "../../src/policy/index.js";
import { argsMatch } from "../../src/policy/match.js";
import { describeRule } from "../../src/policy/rules.js";

const writeFile = { name: "write_file", risk: "moderate" };
const deny = (args: PolicyRule["args"], tool = "write_file"): PolicyRule => ({ tool, args, action: "deny" });
const allow = (args: PolicyRule["args"], tool = "write_file"): PolicyRule => ({ tool, args, action: "allow" });
const denied = (rule: PolicyRule, args: unknown) => firstMatch([rule], writeFile, args) !== undefined;

/** Paths that climb out of the workspace, however they are spelled. */
const escaping = ["..", "../x", "../../etc/passwd", "a/../../x", "./../x", "..\\x", "a\\..\\..\\x"];

describe("firstMatch", () => {
  it("returns the first rule that matches, with its index", () => {
    const rules: PolicyRule[] = [
      { tool: "read_*", action: "allow" },
      { tool: "write_file", args: { path: "**/.env" }, action: "deny" },
      { tool: "*", action: "require_approval" },
    ];
    expect(firstMatch(rules, writeFile, { path: "config/.env" })).toEqual({ rule: rules[1], index: 1 });
    expect(firstMatch(rules, writeFile, { path: "notes.md" })).toEqual({ rule: rules[2], index: 2 });
    expect(firstMatch(rules, { name: "read_file", risk: "safe" }, { path: "config/.env" })).toEqual({ rule: rules[0], index: 0 });
    expect(firstMatch(rules.slice(0, 2), { name: "delete_file", risk: "destructive" }, {})).toBeUndefined();
  });

  it("a rule with a risk matches only tools of that risk", () => {
    const rule: PolicyRule = { tool: "*", risk: "destructive", action: "deny" };
    expect(firstMatch([rule], { name: "delete_file", risk: "destructive" }, {})?.index).toBe(0);
    expect(firstMatch([rule], { name: "write_file", risk: "moderate" }, {})).toBeUndefined();
  });

  it("an argument pattern naming an argument the call does not have does not match", () => {
    expect(denied(deny({ path: "*" }), { content: "x" })).toBe(false);
    expect(denied(deny({ path: "*", mode: "append" }), { path: "notes.md" })).toBe(false);
  });

  it("arguments that are not an object match no argument pattern", () => {
    for (const args of [null, undefined, "notes.md", 42]) expect(denied(deny({ path: "*" }), args)).toBe(false);
    expect(denied(deny(undefined), null)).toBe(true);
  });

  it("a non-string pattern matches an equal value only", () => {
    expect(denied(deny({ overwrite: true }), { overwrite: true })).toBe(true);
    expect(denied(deny({ overwrite: true }), { overwrite: "true" })).toBe(false);
    expect(denied(deny({ retries: 3 }), { retries: 3 })).toBe(true);
    expect(denied(deny({ retries: 3 }), { retries: 4 })).toBe(false);
    expect(denied(deny({ target: null }), { target: null })).toBe(true);
    expect(denied(deny({ target: null }), { target: "x" })).toBe(false);
  });

  it("a string pattern never matches a value that is not a string", () => {
    expect(denied(deny({ count: "*" }), { count: 3 })).toBe(false);
    expect(denied(deny({ path: "**" }), { path: ["a"] })).toBe(false);
  });

  it("every argument pattern must hold", () => {
    const rule = deny({ path: "config/*", mode: "overwrite" });
    expect(denied(rule, { path: "config/app.yaml", mode: "overwrite" })).toBe(true);
    expect(denied(rule, { path: "config/app.yaml", mode: "append" })).toBe(false);
    expect(denied(rule, { path: "notes.md", mode: "overwrite" })).toBe(false);
  });

  it("compares paths after normalising them, so another spelling cannot slip past a deny rule", () => {
    for (const path of ["config/.env", "./config/.env", "config//.env", "config/x/../.env", "config\\.env", "./a/../config/./.env"]) {
      expect(denied(deny({ path: "config/.env" }), { path })).toBe(true);
    }
    expect(denied(deny({ path: "" }), { path: "./" })).toBe(true);
  });

  it("a deny rule also matches the path as written; an allow rule only its normalised form", () => {
    expect(denied(deny({ path: "./secret/*" }), { path: "./secret/key" })).toBe(true);
    expect(firstMatch([allow({ path: "./secret/*" }), deny(undefined)], writeFile, { path: "./secret/key" })?.index).toBe(1);
    expect(firstMatch([allow({ path: "secret/*" }), deny(undefined)], writeFile, { path: "./secret/key" })?.index).toBe(0);
  });

  it("a path that escapes the workspace matches every restricting rule and no permitting one", () => {
    for (const path of escaping) {
      expect(denied(deny({ path: "src/**" }), { path })).toBe(true);
      expect(firstMatch([{ tool: "*", args: { path: "nothing-like-it" }, action: "require_approval" }], writeFile, { path })?.index).toBe(0);
      // An allow rule that would vouch for anything still does not vouch for it: the deny rule after it decides.
      expect(firstMatch([allow({ path: "**" }), deny(undefined)], writeFile, { path })?.index).toBe(1);
    }
    // `../x` normalises to itself; a path that only dips out and back (`a/../x`) stays inside.
    expect(firstMatch([allow({ path: "x" }), deny(undefined)], writeFile, { path: "a/../x" })?.index).toBe(0);
  });
});

describe("trusted", () => {
  it("is true when any trust rule matches the tool and its arguments", () => {
    const rules = [{ tool: "read_*" }, { tool: "write_file", args: { path: "notes/*" } }];
    expect(trusted(rules, { name: "read_file" }, { path: "anything" })).toBe(true);
    expect(trusted(rules, { name: "write_file" }, { path: "notes/today.md" })).toBe(true);
    expect(trusted(rules, { name: "write_file" }, { path: "config/.env" })).toBe(false);
    expect(trusted(rules, { name: "delete_file" }, {})).toBe(false);
  });

  it("is false without trust rules", () => {
    expect(trusted([], { name: "read_file" }, {})).toBe(false);
  });

  it("never trusts a path that escapes the workspace", () => {
    for (const path of escaping) expect(trusted([{ tool: "write_file", args: { path: "**" } }], { name: "write_file" }, { path })).toBe(false);
  });
});

describe("argsMatch", () => {
  it("without patterns, any arguments match", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("restrict" as const, "permit" as const), (args, purpose) => {
        expect(argsMatch(undefined, args, purpose)).toBe(true);
      }),
    );
  });

  it("a string argument inside the workspace matches a glob the same way for either purpose", () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,6}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom("**", "*", "**/*.md", "docs/**"), (segments, glob) => {
        const path = segments.join("/");
        const expected = globMatches(glob, path);
        expect(argsMatch({ path: glob }, { path }, "restrict")).toBe(expected);
        expect(argsMatch({ path: glob }, { path }, "permit")).toBe(expected);
      }),
    );
  });
});

describe("describeRule", () => {
  it("says what the rule does to which tool, where, and why", () => {
    expect(describeRule({ rule: { tool: "write_file", args: { path: "**/.env" }, action: "deny", reason: "no secrets in files" }, index: 0 })).toBe(
      'policy[0] denies write_file where path matches "**/.env": no secrets in files',
    );
    expect(describeRule({ rule: { tool: "read_*", action: "allow" }, index: 3 })).toBe("policy[3] allows read_*");
    expect(
      describeRule({ rule: { tool: "deploy_*", risk: "destructive", args: { env: "prod", force: true }, action: "require_approval", roles: ["ops"] }, index: 2 }),
    ).toBe('policy[2] requires approval for deploy_* (destructive tools) where env matches "prod" and force matches true');
  });
});
