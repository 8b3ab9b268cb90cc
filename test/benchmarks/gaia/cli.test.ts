import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processes, retrace } from "../../cli/run-cli.js";
import { tempDir } from "../../helpers.js";

const fixture = "fixtures/gaia";

describe("retrace bench gaia (the CLI, in a child process)", () => {
  it(
    "check: one line per row with the official verdict, then a summary that counts agreement",
    async () => {
      const { code, stdout } = await retrace(["bench", "gaia", "check", `${fixture}/scorer_cases.dev.jsonl`]);
      const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(36);
      expect(lines[0]).toEqual({ index: 0, correct: true });
      expect(lines[11]).toEqual({ index: 11, correct: false }); // "" vs "0": Python's float('') raises
      expect(lines[35]).toEqual({ summary: { rows: 35, correct: 21, agree: 35, disagree: 0, errors: 0 } });
      expect(code).toBe(0);
    },
    processes(1),
  );

  it(
    "check: a malformed row is named by file and line, the others are still scored, and the exit code says so",
    async () => {
      const dir = tempDir();
      writeFileSync(join(dir, "cases.jsonl"), ['{"model_answer":"1","ground_truth":"1","expected":true}', "{oops", '{"model_answer":"2","ground_truth":"1","expected":true}'].join("\n"));
      const { code, stdout, stderr } = await retrace(["bench", "gaia", "check", "cases.jsonl"], { cwd: dir });
      expect(stderr).toMatch(/^cases\.jsonl:2: not JSON/);
      expect(stdout.trim().split("\n")).toEqual([
        '{"index":0,"correct":true}',
        '{"index":1,"error":"not JSON"}',
        '{"index":2,"correct":false}',
        '{"summary":{"rows":3,"correct":1,"agree":1,"disagree":1,"errors":1}}',
      ]);
      expect(code).toBe(1);
    },
    processes(1),
  );

  it(
    "runs the tasks with scripted replies: accuracy per level and a results file that is the same on every run",
    async () => {
      const dir = tempDir();
      const args = (out: string) => ["bench", "gaia", "--data", fixture, "--model", `scripted:${fixture}/replies.jsonl`, "-o", join(dir, out)];
      const first = await retrace(args("a.jsonl"));
      expect(first.stdout).toBe(
        [
          `GAIA validation (${fixture}): 6 tasks`,
          "  level 1: 1/2 correct (50.0%)",
          "  level 2: 2/2 correct (100.0%)",
          "  level 3: 0/2 correct (0.0%)",
          "  overall: 3/6 correct (50.0%)",
          "",
        ].join("\n"),
      );
      expect(first.code).toBe(0);
      const results = readFileSync(join(dir, "a.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(results[5]).toEqual({ task_id: "t-006", level: 3, status: "wrong", answer: "St Louis, Paris", ground_truth: "St. Louis, Paris", branch: "list", reply: "FINAL ANSWER: St Louis, Paris" });
      const second = await retrace(args("b.jsonl"));
      expect(second.code).toBe(0);
      expect(readFileSync(join(dir, "b.jsonl"), "utf8")).toBe(readFileSync(join(dir, "a.jsonl"), "utf8"));
    },
    processes(2),
  );

  it(
    "refuses bad usage with exit 2 and a message that says what to do",
    async () => {
      const noData = await retrace(["bench", "gaia", "--model", "openai:gpt-4o"]);
      expect(noData).toMatchObject({ code: 2, stderr: expect.stringContaining("--data <dir> is required") });
      const badModel = await retrace(["bench", "gaia", "--data", fixture, "--model", "opnai:gpt-4o"]);
      expect(badModel).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown provider "opnai" (did you mean "openai"?)') });
      const badLimit = await retrace(["bench", "gaia", "--data", fixture, "--model", `scripted:${fixture}/replies.jsonl`, "--limit", "ten"]);
      expect(badLimit).toMatchObject({ code: 2, stderr: expect.stringContaining("--limit must be a whole number") });
      expect(`${noData.stderr}${badModel.stderr}${badLimit.stderr}`).not.toMatch(/\n\s+at /);
    },
    processes(3),
  );
});


describe("bench --help", () => {
  it(
    "prints the benchmark's own help for `bench <name> --help`, and the list for `bench --help`",
    async () => {
      const gaia = await retrace(["bench", "gaia", "--help"]);
      expect(gaia).toMatchObject({ code: 0, stdout: expect.stringMatching(/^retrace bench gaia --data <dir> --model/) });
      const bfcl = await retrace(["bench", "bfcl", "--help"]);
      expect(bfcl).toMatchObject({ code: 0, stdout: expect.stringMatching(/^retrace bench bfcl/) });
      const bench = await retrace(["bench", "--help"]);
      expect(bench).toMatchObject({ code: 0, stdout: expect.stringContaining("Benchmarks: bfcl, gaia") });
    },
    processes(3),
  );
});
