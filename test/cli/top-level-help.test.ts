import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/io.js";
import { tempDir } from "../helpers.js";
import { processes, retrace, root } from "./run-cli.js";

/** What main itself prints for these arguments, and its exit code. */
async function mainSays(argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const io = { stdout: (text: string) => void (stdout += text), stderr: () => undefined } as unknown as CliIO;
  const code = await main(argv, io);
  return { code, stdout };
}

/** A preload that reports, as the process exits, which of the runtime's files it loaded. */
function runtimeProbe(): string {
  const probe = join(tempDir(), "probe.cjs");
  writeFileSync(
    probe,
    'process.on("exit", () => process.stderr.write("loaded:" + Object.keys(require.cache).filter((f) => /[\\\\/]dist[\\\\/]runtime[\\\\/]/.test(f)).map((f) => require("node:path").basename(f)).join(",") + "\\n"));\n',
  );
  return probe;
}

describe("retrace --help", () => {
  it("prints what main prints, with main's exit codes, for --help, -h, help and no command", { timeout: processes(4) }, async () => {
    for (const argv of [["--help"], ["-h"], ["help"], []]) {
      const expected = await mainSays(argv);
      expect(expected.stdout).toMatch(/^retrace — record, replay and test AI agents\n/);
      expect(await retrace(argv)).toEqual({ code: expected.code, stdout: expected.stdout, stderr: "" });
    }
  });

  it("does not load the runtime to print it; any other command does", { timeout: processes(2) }, async () => {
    const probe = runtimeProbe();
    const help = await retrace(["--help"], { node: ["--require", probe] });
    expect(help.stderr).toBe("loaded:\n");
    const version = await retrace(["--version"], { node: ["--require", probe] });
    expect(version.code).toBe(0);
    expect(version.stderr).toMatch(/^loaded:.*load\.cjs/);
  });

  it("is printed by main when the build left no usage text", { timeout: processes(1) }, async () => {
    const copy = tempDir();
    try {
      cpSync(join(root, "bin"), join(copy, "bin"), { recursive: true });
      mkdirSync(join(copy, "dist"));
      cpSync(join(root, "dist/runtime"), join(copy, "dist/runtime"), { recursive: true });
      cpSync(join(root, "package.json"), join(copy, "package.json"));
      rmSync(join(copy, "dist/runtime/usage.txt"));
      const result = await promisify(execFile)(process.execPath, ["--require", runtimeProbe(), join(copy, "bin/retrace.js"), "--help"], {
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", RETRACE_CODE_CACHE: "off" },
      });
      const expected = await mainSays(["--help"]);
      expect({ code: 0, stdout: result.stdout }).toEqual(expected);
      expect(result.stderr).toMatch(/^loaded:.*load\.cjs/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
