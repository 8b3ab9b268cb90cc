/** `retrace bench bfcl check` in a real child process (the build in dist/). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processes, retrace, root } from "../../cli/run-cli.js";
import { tempDir } from "../../helpers.js";

const cases = join(root, "fixtures/bfcl/checker_cases.dev.jsonl");

describe("retrace bench bfcl check", () => {
  it("prints one verdict per case, then a summary agreeing with every official verdict", { timeout: processes(1) }, async () => {
    const { code, stdout, stderr } = await retrace(["bench", "bfcl", "check", cases]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(45);
    expect(lines[0]).toEqual({ id: "s01", valid: true, error_type: null });
    expect(lines[2]).toEqual({ id: "s05", valid: false, error_type: "type_error:simple" });
    expect(Object.keys(lines[0] as object)).toEqual(["id", "valid", "error_type"]);
    expect(lines[44]).toEqual({ summary: { cases: 44, valid: 27, invalid: 17, with_expected: 44, agree_with_expected: 44, bad_lines: 0 } });
  });

  it("names the file and line of a malformed case, scores the rest, and exits 2", { timeout: processes(1) }, async () => {
    const dir = tempDir("retrace-bfcl-check-");
    const file = join(dir, "cases.jsonl");
    writeFileSync(file, `{"id": "broken"\n${JSON.stringify({ id: "ok", test_category: "irrelevance", function: [], input_mode: "prompting_raw", model_result_raw: "no call" })}\n`);
    const { code, stdout, stderr } = await retrace(["bench", "bfcl", "check", "cases.jsonl"], { cwd: dir });
    expect(stderr).toMatch(/^cases\.jsonl:1: not a BFCL checker case: /);
    expect(stdout.split("\n")[0]).toBe('{"id":"ok","valid":true,"error_type":null}');
    expect(code).toBe(2);
  });
});
