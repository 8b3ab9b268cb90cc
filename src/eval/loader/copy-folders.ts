/**
 * Temp folders that hold rewritten copies of the user's modules (an eval file's, its TypeScript
 * helpers'): each is removed when done with, and any left is removed as the process exits, since
 * an eval file that ends the process as it loads skips the `finally` that would remove its copy.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const folders = new Set<string>();
let removedAtExit = false;

/** A new folder in the temp directory, its name starting with `prefix`. */
export function madeCopyFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  if (!removedAtExit) {
    removedAtExit = true;
    process.on("exit", () => folders.forEach(removeCopyFolder));
  }
  return dir;
}

/** Best effort: a folder that cannot be removed is left, and never fails a load or the process's exit. */
export function removeCopyFolder(dir: string): void {
  folders.delete(dir);
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left in the temp directory, which the system tidies.
  }
}
