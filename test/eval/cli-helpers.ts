import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EvalReportSchema, type EvalReport } from "../../src/eval/report/schema.js";

export const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/retrace.js");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI (the build in dist/) in a child process, with no API keys and no proxy settings. */
export function retrace(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMPDIR: tmpdir(), NO_COLOR: "1", ...options.env };
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: options.cwd ?? root, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export function tempDir(prefix = "retrace-eval-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Reads a JSON report, checking it against the documented schema. */
export function readJsonReport(file: string): EvalReport {
  return EvalReportSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}
