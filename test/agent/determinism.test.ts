import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("the same agent, script and seed", () => {
  it("gives logs with the same sha256 in two processes", async () => {
    const dir = tempDir();
    const outputs = await Promise.all(
      ["a.db", "b.db"].map((name) =>
        run(process.execPath, ["--import", "tsx", join(root, "test/agent/fixtures/deterministic-run.ts"), join(dir, name)], { cwd: root }),
      ),
    );
    const [first, second] = outputs.map((output) => output.stdout.trim());
    console.log(`log sha256 (events): ${first} | ${second}`);
    expect(first).toMatch(/^[0-9a-f]{64} \d+$/);
    expect(Number(first?.split(" ")[1])).toBeGreaterThan(20);
    expect(second).toBe(first);
  }, 60_000);
});
