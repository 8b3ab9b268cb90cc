import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";

export const initHelp = `retrace init [dir] [--force]

Scaffolds a working eval suite in dir (default: the current folder):
  agent.yaml            an agent with the calculator tool (OpenAI by default)
  mock.yaml             a mock script, so evals run with no key and no network
  eval/agent.eval.ts    two eval cases that pass out of the box
  package.json          only when dir has none ("type": "module", an "eval" script)

Then: npx retrace eval-test --mock
Existing files are left alone unless --force is given.
`;

const AGENT = `# An agent: a system prompt, a model and tools. Run it with a real model:
#   export OPENAI_API_KEY=sk-...   then: npx retrace run agent.yaml -m "What is 17 * 23?"
# or without one, from the mock script:  npx retrace run agent.yaml -m "What is 2 + 2?" --mock mock.yaml
name: assistant
system_prompt: |
  You are a careful assistant. Use the calculator tool for any arithmetic,
  then answer in one short sentence.
max_steps: 5
llm:
  provider: openai
  temperature: 0
tools:
  - calculator
`;

const MOCK = `# A scripted model for --mock runs: the first call asks for the calculator, the second answers.
# A run that needs a response the script does not have fails with "script exhausted".
responses:
  - tool_calls:
      - name: calculator
        arguments: { expression: "2 + 2" }
  - text: "2 + 2 = 4."
`;

const EVAL = `import { defineEval, match } from "retrace-agents";

// Run with: npx retrace eval-test --mock   (no key, no network)
defineEval({
  name: "uses the calculator for arithmetic",
  config: "../agent.yaml",
  mock: "../mock.yaml",
  tags: ["smoke"],
  test: async (t) => {
    await t.send("What is 2 + 2?");
    t.completed();
    t.calledToolWith("calculator", { expression: "2 + 2" });
    t.outputContains("4");
    t.check(t.reply, match.numeric(4));
    t.maxSteps(2);
  },
});

defineEval({
  name: "answers small talk without tools",
  config: "../agent.yaml",
  mock: { responses: [{ text: "Hello! How can I help?" }] },
  tags: ["smoke"],
  test: async (t) => {
    await t.send("Hi there");
    t.completed();
    t.usedNoTools();
    t.outputMatches(/hello/i);
  },
});
`;

export function initCommand(argv: string[], io: CliIO): ExitCode {
  const { values, positionals } = parseCommandArgs("init", argv, { force: { type: "boolean", default: false } });
  if (positionals.length > 1) throw new UsageError(`init: expected at most one folder, got ${positionals.length}`);
  const dir = resolve(io.cwd, positionals[0] ?? ".");
  mkdirSync(join(dir, "eval"), { recursive: true });
  const packageFile = join(dir, "package.json");
  let moduleType = true;
  if (existsSync(packageFile)) {
    try {
      moduleType = (JSON.parse(readFileSync(packageFile, "utf8")) as { type?: string }).type === "module";
    } catch {
      moduleType = false;
    }
  }
  // In a CommonJS package a .ts file would be compiled to require(); .mts stays an ES module.
  const evalFile = join("eval", moduleType ? "agent.eval.ts" : "agent.eval.mts");
  const files: [string, string][] = [
    ["agent.yaml", AGENT],
    ["mock.yaml", MOCK],
    [evalFile, EVAL],
  ];
  if (!existsSync(packageFile)) {
    files.push([
      "package.json",
      `${JSON.stringify({ name: "retrace-evals", private: true, type: "module", scripts: { eval: "retrace eval-test --mock" } }, null, 2)}\n`,
    ]);
  }
  const shown = relative(io.cwd, dir) || ".";
  for (const [name, text] of files) {
    const path = join(dir, name);
    if (existsSync(path) && !values.force) {
      io.stdout(`  kept     ${join(shown, name)} (exists; --force overwrites)\n`);
      continue;
    }
    writeFileSync(path, text);
    io.stdout(`  created  ${join(shown, name)}\n`);
  }
  io.stdout(`\nNext: ${shown === "." ? "" : `cd ${shown} && `}npx retrace eval-test --mock\n`);
  return ExitCode.ok;
}
