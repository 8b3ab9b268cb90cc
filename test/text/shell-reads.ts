import { execFileSync } from "node:child_process";

/**
 * What a POSIX shell makes of `text` pasted after a command: the arguments a real `sh` reads from
 * it. `for a in <text>` word-splits only unquoted expansions, and quoted words expand nothing, so
 * each word is one argument; `set -f` keeps an unquoted glob from matching files.
 */
export function shellReads(text: string): string[] {
  const out = execFileSync("sh", ["-c", `set -f; for a in ${text}; do printf '%s\\0' "$a"; done`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}
