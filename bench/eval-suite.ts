/**
 * Writes a generated mock eval suite: `cases` cases over `files` files, each case two model
 * turns (a calculator call, then the answer) and two assertions, all sharing one agent config.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const AGENT = `name: bench
system_prompt: You are a careful assistant. Use the calculator for arithmetic, then answer in one sentence.
max_steps: 4
llm:
  provider: openai
  temperature: 0
tools: [calculator]
`;

export function writeEvalSuite(dir: string, cases: number, files = Math.max(1, Math.ceil(cases / 50))): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agent.yaml"), AGENT);
  const perFile = Math.ceil(cases / files);
  let written = 0;
  for (let file = 1; written < cases; file++) {
    const lines = ['import { defineEval } from "retrace-agents";', ""];
    for (let index = 0; index < perFile && written < cases; index++, written++) {
      const a = 3 + ((written * 7) % 97);
      const b = 5 + ((written * 13) % 89);
      const expression = `${a} * ${b}`;
      lines.push(
        `defineEval({`,
        `  name: "multiplies ${a} by ${b} (#${written + 1})",`,
        `  config: "./agent.yaml",`,
        `  mock: {`,
        `    responses: [`,
        `      { tool_calls: [{ name: "calculator", arguments: { expression: "${expression}" } }] },`,
        `      { text: "${expression} = ${a * b}." },`,
        `    ],`,
        `  },`,
        `  test: async (t) => {`,
        `    await t.send("What is ${a} times ${b}?");`,
        `    t.calledToolWith("calculator", { expression: "${expression}" });`,
        `    t.outputContains("${a * b}");`,
        `  },`,
        `});`,
        "",
      );
    }
    writeFileSync(join(dir, `suite-${String(file).padStart(3, "0")}.eval.ts`), lines.join("\n"));
  }
}
