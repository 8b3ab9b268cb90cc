import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { UsageError } from "../../errors/index.js";
import { ownPackage, PACKAGE_NAME } from "../../package-info.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { dependencySpec, EVAL_SCRIPT, hasEvalScript, installedRetrace, planPackageJson, readPackageJson } from "./init-package.js";

export const initHelp = `retrace init [dir] [--force]

Scaffolds a working eval suite in dir (default: the current folder):
  agent.yaml            an agent with the calculator tool (OpenAI by default)
  mock.yaml             a mock script, so evals run with no key and no network
  eval/agent.eval.ts    two eval cases that pass out of the box
  package.json          created, or amended: a devDependency on ${PACKAGE_NAME} and an
                        "eval" script (${EVAL_SCRIPT}); fields already there are kept

Then, once ${PACKAGE_NAME} is installed in the project: npm run eval
Existing files are left alone unless --force is given; package.json is only ever amended.
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

const EVAL = `import { defineEval, match } from "${PACKAGE_NAME}";

// Run with: npm run eval   (that is, ${EVAL_SCRIPT}: no key, no network)
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
  const manifest = readPackageJson(dir);
  let moduleType = true;
  if (manifest !== undefined) {
    try {
      moduleType = (JSON.parse(manifest) as { type?: string }).type === "module";
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
  const below = relative(io.cwd, dir);
  // A folder outside the working directory is clearer by its absolute path than by ../../..
  const shown = below === "" ? "." : below.startsWith("..") || isAbsolute(below) ? dir : below;
  const say = (verb: string, name: string, note = ""): void => io.stdout(`  ${verb.padEnd(9)} ${join(shown, name)}${note}\n`);
  for (const [name, text] of files) {
    const path = join(dir, name);
    const exists = existsSync(path);
    if (exists && !values.force) {
      say("kept", name, " (exists; --force overwrites)");
      continue;
    }
    writeFileSync(path, text);
    say(exists ? "overwrote" : "created", name);
  }
  const plan = planPackageJson(manifest, dependencySpec(dir));
  if (plan.action !== "keep") writeFileSync(join(dir, "package.json"), plan.text);
  if (plan.action === "create") say("created", "package.json");
  else say(plan.action === "update" ? "updated" : "kept", "package.json", plan.action === "update" ? ` (added ${plan.added.join(", ")})` : "");
  for (const note of plan.action === "create" ? [] : plan.notes) io.stdout(`            ${note}\n`);
  io.stdout(`\nNext: ${nextStep(dir, shown, plan.action === "keep" ? manifest : plan.text)}\n`);
  return ExitCode.ok;
}

/**
 * A command that works from where the user is: `npx retrace` before Retrace is installed in the
 * project would fetch the unrelated npm package `retrace`, so until then the first step is to
 * install it.
 */
function nextStep(dir: string, shown: string, manifest: string | undefined): string {
  const run = hasEvalScript(manifest) ? "npm run eval" : `npx retrace ${EVAL_SCRIPT.slice("retrace ".length)}`;
  const steps = [shown === "." ? undefined : `cd ${shellWord(shown)}`];
  if (installedRetrace(dir) === undefined) {
    const own = ownPackage().root;
    // A checkout can be installed by its path; a copy installed elsewhere (globally, or by npx)
    // is installed from the spec package.json now declares.
    const checkout = !own.split(sep).includes("node_modules");
    steps.push(checkout ? `npm install -D ${shellWord(own)}` : "npm install");
  }
  steps.push(run);
  return steps.filter((step) => step !== undefined).join(" && ");
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
