import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/retrace.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (the build in dist/) in a child process, with no API keys or proxy settings; `node`: Node's own options. */
export async function retrace(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string; node?: string[] } = {}): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMPDIR: tmpdir(), NO_COLOR: "1", ...options.env };
  return new Promise((resolvePromise) => {
    const child = execFile(process.execPath, [...(options.node ?? []), bin, ...args], { cwd: options.cwd ?? root, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolvePromise({ code, stdout, stderr });
    });
    // A command that exits before reading its stdin closes the pipe: EPIPE then says nothing about the command.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}

/**
 * A test's timeout from the CLI processes it starts. One start takes well under a second on an
 * idle machine and several seconds when other work keeps every core busy, so the budget is per
 * process: a loaded machine slows a correct test without failing it, and a process that hangs
 * still fails its test. A run of the project's whole eval suite counts as two.
 */
export function processes(count: number): number {
  return Math.max(20_000, count * 15_000);
}
