import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EvalReportSchema, type EvalReport } from "../../src/eval/report/schema.js";
import { tempDir as makeTempDir } from "../helpers.js";

export { retrace, root, type CliResult as CliRun } from "../cli/run-cli.js";

export function tempDir(prefix = "retrace-eval-test-"): string {
  return makeTempDir(prefix);
}

/** Reads a JSON report, checking it against the documented schema. */
export function readJsonReport(file: string): EvalReport {
  return EvalReportSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}

/** One eval case for CLI tests: an inline agent and script, a turn, then `body`. */
export const CASE = (name: string, body: string, extra = ""): string => `
defineEval({
  name: ${JSON.stringify(name)},
  config: { name: "t", llm: { provider: "openai" }, tools: ["calculator"] },
  mock: { responses: [{ text: "Hello there." }] },${extra}
  test: async (t) => {
    await t.send("hi");
    ${body}
  },
});
`;

/** A temp folder holding the given files (paths relative to it). */
export function suite(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
