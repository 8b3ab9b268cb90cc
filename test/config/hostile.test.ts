import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { MAX_EXPANDED_VALUE_CHARS, buildAgent, parseConfig } from "../../src/config/index.js";
import { ConfigError } from "../../src/errors/index.js";
import { globToRegExp } from "../../src/patterns/index.js";
import { Guardrails, globMatches } from "../../src/policy/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { MAX_YAML_ALIASES, parseYaml } from "../../src/validation/index.js";
import { LineCounter, parse as parseYamlPackage, parseDocument } from "yaml";
import { retrace } from "../cli/run-cli.js";
import { scriptedAgent, tempDir, testContext } from "../helpers.js";

/** "Billion laughs": each level repeats the one below nine times. */
function aliasBomb(levels = 9): string {
  const names = "abcdefghijklmnop";
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < levels; level++) lines.push(`${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(",")}]`);
  return lines.join("\n");
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("no error");
}

describe("hostile or huge input is a typed error, never a stack trace", () => {
  it(`refuses a YAML alias bomb in a config (more than ${MAX_YAML_ALIASES} alias expansions), naming the file`, () => {
    const error = configError(() => parseConfig(`name: a\nllm: {provider: scripted}\nbomb:\n  ${aliasBomb().replaceAll("\n", "\n  ")}\n`, { file: "agent.yaml", env: {} }));
    expect(error.describe()).toMatch(/^agent\.yaml: YAML aliases expand too much/);
  });

  it("refuses a YAML alias bomb in a mock script", () => {
    const file = join(tempDir(), "mock.yaml");
    writeFileSync(file, `responses: [{text: hi}]\nx:\n  ${aliasBomb().replaceAll("\n", "\n  ")}\n`);
    expect(configError(() => ScriptedModel.fromFile(file)).describe()).toMatch(/mock\.yaml: YAML aliases expand too much/);
  });

  it("keeps ordinary anchors and aliases working", () => {
    const { config } = parseConfig("name: a\nllm: {provider: scripted}\npolicy:\n  - &deny { tool: write_file, action: deny }\n  - *deny\n", { env: {} });
    expect(config.policy).toHaveLength(2);
  });

  it("an env expansion over the size limit names the file and the key", () => {
    const big = "x".repeat(64 * 1024);
    const yaml = `name: a\nllm: {provider: scripted}\nsystem_prompt: "${"${BIG}".repeat(MAX_EXPANDED_VALUE_CHARS / big.length + 1)}"\n`;
    const error = configError(() => parseConfig(yaml, { file: "agent.yaml", env: { BIG: big } }));
    expect(error.describe()).toMatch(/^agent\.yaml system_prompt: environment variables expand to more than 1048576 characters in one value/);
  });

  it("through the CLI: an alias bomb exits 2 with one line, no stack trace", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), `name: a\nllm: {provider: scripted}\nbomb:\n  ${aliasBomb().replaceAll("\n", "\n  ")}\n`);
    const result = await retrace(["run", join(dir, "agent.yaml"), "-m", "hi", "--mock", join(dir, "agent.yaml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/YAML aliases expand too much/);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});

describe("a config's own patterns cannot hang a run", () => {
  it("(a+)+$ and \\s+$ as guardrails run against a long answer and the run completes", async () => {
    const yaml = "name: a\nllm: {provider: scripted}\nguardrails:\n  output:\n    block: ['(a+)+$']\n    warn: ['\\s+$', 'a.*b']\n    redact: ['(\\w+\\s?)+!']\n";
    const { config } = parseConfig(yaml, { file: "agent.yaml", env: {} });
    const answer = `${"a".repeat(100_000)}${" ".repeat(100_000)}x`;
    const agent = await buildAgent({ config, file: "agent.yaml", baseDir: tempDir(), missingEnv: new Map() }, { mock: new ScriptedModel({ responses: [{ text: answer }] }) });
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
    expect(await run.send("go")).toMatchObject({ status: "completed", output: answer });
  });

  it("a guardrail built in code runs (a+)+$ on a long answer too, and blocks when it matches", async () => {
    const settings = (block: string[]) => ({ input: { promptInjection: false, block: [] }, output: { block, warn: [], redact: [] } });
    const guardrails = new Guardrails(settings(["(a+)+$"]));
    const long = "a".repeat(200_000);
    const blocked = AgentRun.start(scriptedAgent({ responses: [{ text: long }] }, { guardrails }), { store: new MemoryRunStore(), context: testContext() });
    expect(await blocked.send("go")).toMatchObject({ status: "failed", error: { code: "guardrail_blocked" } });
    const passed = AgentRun.start(scriptedAgent({ responses: [{ text: `${long}!` }] }, { guardrails }), { store: new MemoryRunStore(), context: testContext() });
    expect(await passed.send("go")).toMatchObject({ status: "completed" });
  });

  it("refuses what has no linear-time form when it could take exponential time: back-references, exponential shapes under lookarounds", () => {
    for (const pattern of ["(x)\\1", "(?=(a+)+$)b", "(?<!(a|aa)*)c"]) {
      const yaml = `name: a\nllm: {provider: scripted}\nguardrails:\n  output:\n    block: [ok, '${pattern}']\n`;
      expect(configError(() => parseConfig(yaml, { file: "agent.yaml", env: {} })).describe()).toMatch(/^agent\.yaml guardrails\.output\.block\[1\]: pattern .* refused/);
    }
    expect(() => new Guardrails({ input: { promptInjection: false, block: ["(x)\\1"] }, output: { block: [], warn: [], redact: [] } })).toThrow(ConfigError);
    expect(() => parseConfig("name: a\nllm: {provider: scripted}\nguardrails: {output: {block: ['(?=a)b+', 'drop\\s+table', '(a+)+$']}}\n", { env: {} })).not.toThrow();
  });

  it("policy globs match in time linear in the argument: *a*a*a*a*b against a long path", () => {
    expect(globMatches("*a*a*a*a*a*b", "a".repeat(200_000))).toBe(false);
    expect(globMatches("**/**/**/**/x", "a/".repeat(50_000))).toBe(false);
  });

  it("policy globs mean what globToRegExp means", () => {
    const piece = fc.constantFrom("a", "b", "/", ".", "-");
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, fc.constantFrom("*", "**", "**/", "?")), { maxLength: 8 }).map((parts) => parts.join("")),
        fc.array(piece, { maxLength: 10 }).map((parts) => parts.join("")),
        (glob, text) => {
          expect(globMatches(glob, text)).toBe(globToRegExp(glob).test(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("long double-quoted YAML scalars are read without yaml's per-character copy", () => {
  const char = fc.constantFrom("a", "b", " ", "'", "\\\\", "\\n", "\\t", '\\"', "\\u00e9", "é", "\\x41", "#", ":", "\n", "\\/");
  const long = fc.array(char, { minLength: 1, maxLength: 40 }).map((parts) => {
    const body = parts.join("");
    return `"${body.repeat(Math.ceil(5000 / body.length))}"`;
  });

  it("reads the same values as the yaml package, in block and flow context, as keys and values", () => {
    fc.assert(
      fc.property(long, long, (a, b) => {
        for (const text of [`k: ${a}\nlist:\n  - ${b}\n`, `{${a}: [${b}, x]}\n`, `${a}\n`]) {
          let expected: unknown;
          try {
            expected = parseYamlPackage(text);
          } catch {
            continue; // yaml itself refuses this text; so must we, which the next test covers
          }
          expect(parseYaml(text)).toEqual(expected);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("reports an error after a long scalar at the same line and column as yaml", () => {
    const text = `a: "${"x".repeat(10_000)}"\nb: [\n  c: d\n   e\n`;
    const lineCounter = new LineCounter();
    const [first] = parseDocument(text, { prettyErrors: false, lineCounter }).errors;
    const position = lineCounter.linePos(first?.pos[0] ?? -1);
    expect(configError(() => parseYaml(text, "f.yaml")).message).toMatch(new RegExp(`^malformed YAML at line ${position.line}, column ${position.col}:`));
  });
});
