import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root, retrace } from "../cli/run-cli.js";
import { tempDir } from "../helpers.js";

const readme = readFileSync(join(root, "README.md"), "utf8");

/** The first fenced block of `language` after `heading`: what a reader copies from that section. */
function firstBlock(heading: string, language: string): string {
  const section = readme.slice(readme.indexOf(heading));
  const match = section.match(new RegExp("```" + language + "\\n([\\s\\S]*?)```"));
  if (!match?.[1]) throw new Error(`README has no ${language} block under ${heading}`);
  return match[1];
}

describe("the README's examples work as written", { timeout: 60_000 }, () => {
  it("the first eval example passes, saved as eval/calculator.eval.ts beside this project's agents", async () => {
    // The example's relative paths name this project's own eval agents and mocks.
    const dir = tempDir("retrace-readme-");
    cpSync(join(root, "eval/agents"), join(dir, "agents"), { recursive: true });
    cpSync(join(root, "eval/mocks"), join(dir, "mocks"), { recursive: true });
    writeFileSync(join(dir, "calculator.eval.ts"), firstBlock("## Evals", "ts"));
    const result = await retrace(["eval-test", dir, "--mock"]);
    expect(result.stdout + result.stderr).toContain("1 passed · 0 failed");
    expect(result.code).toBe(0);
  });
});
