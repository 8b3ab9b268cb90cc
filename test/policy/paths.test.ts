import fc from "fast-check";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { firstMatch, trusted, type PolicyRule } from "../../src/policy/index.js";
import { defineTool } from "../../src/tools/index.js";
import { tempDir } from "../helpers.js";
import { agentFrom, ofType, start } from "./support.js";

const write = (path: string, content = "x") => ({ name: "write_file", arguments: { path, content } });

describe("a path argument is matched in its workspace-relative form", () => {
  it("D: a deny rule on config/** holds for every spelling of a path inside config/, absolute included", async () => {
    const baseDir = tempDir();
    const workspace = join(baseDir, "workspace");
    mkdirSync(join(workspace, "config"), { recursive: true });
    const spellings = ["config/a.env", join(workspace, "config", "secrets.env"), "./config/b.env", "config//c.env", "notes/../config/d.env", "config\\e.env"];
    const agent = await agentFrom(
      'name: a\nmode: yolo\nllm: {provider: scripted}\ntools: [write_file]\npolicy:\n  - { tool: write_file, args: { path: "config/**" }, action: deny }\n',
      { responses: [{ tool_calls: [...spellings.map((path) => write(path)), write("notes/ok.md")] }, { text: "done" }] },
      {},
      baseDir,
    );
    const { run } = await start(agent, "write them");
    expect(ofType(run.log.events, "tool.blocked").map((event) => [event.callId, event.reason])).toEqual(
      spellings.map((_, index) => [`call_1_${index + 1}`, "policy_denied"]),
    );
    expect(ofType(run.log.events, "tool.finished").map((event) => event.name)).toEqual(["write_file"]);
    expect(existsSync(join(workspace, "config", "secrets.env"))).toBe(false);
    expect(existsSync(join(workspace, "notes", "ok.md"))).toBe(true);
  });

  it("a path that leaves the workspace never matches an allow or trust rule", async () => {
    const baseDir = tempDir();
    const agent = await agentFrom(
      'name: a\nmode: auto\nllm: {provider: scripted}\ntools: [{name: write_file, requires_approval: true}]\ntrust:\n  - { tool: write_file, args: { path: "**" } }\n',
      { responses: [{ tool_calls: [write("notes/a.md"), write("../outside.md"), write("/etc/outside.md")] }, { text: "done" }] },
      {},
      baseDir,
    );
    const { run, outcome } = await start(agent, "write");
    expect(outcome.status).toBe("waiting");
    expect(ofType(run.log.events, "approval.requested").map((event) => event.callId)).toEqual(["call_1_2", "call_1_3"]);
  });

  it("defineTool refuses a path argument its input does not have", () => {
    expect(() => defineTool({ name: "t", description: "t", input: z.object({ file: z.string() }), pathArgs: ["path"], run: () => null })).toThrow(/path/);
  });
});

const ROOT = "/srv/ws";
const tool = { name: "write_file", risk: "destructive", pathArgs: ["path"], pathRoot: ROOT } as const;
const segment = fc.constantFrom("config", "notes", "a", ".env", "x.md", "b");
const insidePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));

/** Ways to write the same workspace path. */
const spell = (path: string) =>
  fc.constantFrom(
    path,
    `./${path}`,
    `${ROOT}/${path}`,
    `${ROOT}//${path}`,
    path.replaceAll("/", "//"),
    `notes/../${path}`,
    `./a/./../${path}`,
    `${path}/`,
    path.replaceAll("/", "\\"),
    `${ROOT}/a/../${path}`,
  );

const glob = fc.constantFrom("config/**", "**/.env", "*", "a/*", "**", "notes/**", `${ROOT}/config/**`, "config/*.md", "./config/**", "config//**");
const rule: fc.Arbitrary<PolicyRule> = fc.record({
  tool: fc.constant("write_file"),
  args: glob.map((path) => ({ path })),
  action: fc.constantFrom("allow" as const, "deny" as const, "require_approval" as const),
});

describe("property (6): equivalent spellings of a path get the same policy verdict", () => {
  it("inside the workspace, for random rules and spellings", () => {
    fc.assert(
      fc.property(insidePath.chain((path) => fc.tuple(fc.constant(path), spell(path), spell(path))), fc.array(rule, { maxLength: 4 }), ([path, a, b], rules) => {
        const verdict = (spelling: string) => firstMatch(rules, tool, { path: spelling })?.index;
        const trust = (spelling: string) => trusted(rules, tool, { path: spelling });
        expect(verdict(a)).toBe(verdict(path));
        expect(verdict(b)).toBe(verdict(path));
        expect(trust(a)).toBe(trust(path));
        expect(trust(b)).toBe(trust(path));
      }),
    );
  });

  it("outside the workspace, a path matches no allow or trust rule, however it is spelled", () => {
    const outside = fc.constantFrom("../x", "a/../../x", `${ROOT}/../x`, "/etc/passwd", `${ROOT}x/config/a`, "..");
    fc.assert(
      fc.property(outside, fc.array(glob, { minLength: 1, maxLength: 4 }), (path, globs) => {
        const allows = globs.map((pattern) => ({ tool: "write_file", args: { path: pattern }, action: "allow" as const }));
        expect(firstMatch(allows, tool, { path })).toBeUndefined();
        expect(trusted(allows, tool, { path })).toBe(false);
        // A rule that restricts does apply to it.
        expect(firstMatch([{ tool: "write_file", args: { path: "config/**" }, action: "deny" }], tool, { path })?.index).toBe(0);
      }),
    );
  });
});
