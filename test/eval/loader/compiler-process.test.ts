/**
 * The TypeScript compiler (esbuild's service) is a child process of the CLI: it must have ended,
 * reaped, by the time the command exits — no process of the command's group outlives it, not
 * even a zombie. The real CLI, started as the leader of its own process group.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_NAME } from "../../../src/package-info.js";
import { CASE, root, suite } from "../cli-helpers.js";
import { processes } from "../../cli/run-cli.js";

/** The processes (any state) whose process group is `group`, from /proc. */
function inGroup(group: number): { pid: number; state: string; command: string }[] {
  const found: { pid: number; state: string; command: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended while we looked
    }
    // "pid (command) state ppid pgrp ...": the command may hold spaces and parentheses.
    const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === group) found.push({ pid: Number(entry), state: state ?? "?", command });
  }
  return found;
}

function runDetached(args: string[], cwd: string): Promise<{ pid: number; code: number | null; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, "bin/retrace.js"), ...args], {
      cwd,
      detached: true,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ pid: child.pid as number, code, stdout }));
  });
}

describe.runIf(process.platform === "linux")("the TypeScript compiler's process", () => {
  it(
    "has ended, and been waited for, when eval-test exits",
    async () => {
      // A path and text no earlier run compiled, so esbuild has to start.
      const dir = suite({
        "typed.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nconst greeting: string = "hi";\n${CASE("typed", "t.completed(); t.check(greeting, 'hi');")}`,
      });
      const run = await runDetached(["eval-test", ".", "--mock"], dir);
      expect(run.stdout).toContain("1 passed");
      expect(run.code).toBe(0);
      expect(inGroup(run.pid)).toEqual([]);
    },
    processes(1),
  );
});
