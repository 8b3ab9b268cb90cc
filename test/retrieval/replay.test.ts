// Both retrieval modes replay identically: the same case run twice — in two processes, from two
// folders, with different working directories — gives logs with the same sha256.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const script = join(root, "test/retrieval/fixtures/rag-run.ts");
// By URL, so the child that runs elsewhere finds tsx without a node_modules of its own.
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

describe("retrieval runs replay identically", () => {
  it("augment and search_docs runs give the same log bytes in two processes, from a copy of the project in another folder", async () => {
    const dir = tempDir();
    const copy = join(dir, "elsewhere");
    mkdirSync(join(copy, "eval"), { recursive: true });
    cpSync(join(root, "eval/agents"), join(copy, "eval/agents"), { recursive: true });
    cpSync(join(root, "fixtures/retrieval"), join(copy, "fixtures/retrieval"), { recursive: true });
    const outputs = await Promise.all([
      run(process.execPath, ["--import", tsx, script, root, join(dir, "a.db")], { cwd: root }),
      run(process.execPath, ["--import", tsx, script, copy, join(dir, "b.db")], { cwd: dir }),
    ]);
    const [first, second] = outputs.map((output) => output.stdout.trim());
    console.log(`retrieval log sha256 (augment, search_docs): ${first?.replace("\n", " | ")}`);
    const lines = first?.split("\n") ?? [];
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} \d+$/);
    expect(second).toBe(first);
  }, 60_000);
});
