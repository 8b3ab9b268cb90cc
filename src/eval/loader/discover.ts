/**
 * Which files under a folder are eval files: `*.eval.ts`, `.mts`, `.js`, `.mjs`, in any folder
 * but `node_modules` and hidden ones (`.git`, `.retrace`, a cache), which are never opened. A
 * project's root is a path users give (`retrace eval-test .`), and its node_modules alone held
 * ~10,000 entries (~90 ms to list) in a fresh project with Retrace installed; pnpm's can be ten
 * times that. Symbolic links to folders are followed, each folder once: a link back to a parent
 * would otherwise find the same file again under a longer path, once per level, until the
 * system's limit on links in a path (40 levels on Linux).
 */
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";

export const EVAL_FILE = /\.eval\.(?:ts|mts|js|mjs)$/;

/** Lists one folder (injected by tests, to see which folders a walk opens). */
export type ListFolder = (folder: string) => Dirent[];

const listFolder: ListFolder = (folder) => readdirSync(folder, { withFileTypes: true });

const skipped = (name: string): boolean => name === "node_modules" || name.startsWith(".");

/** Where a path leads, or undefined when it leads nowhere (a dangling link). */
function target(path: string): { real: string; folder: boolean } | undefined {
  try {
    return { real: realpathSync(path), folder: statSync(path).isDirectory() };
  } catch {
    return undefined;
  }
}

/** The eval files under `root` (an existing folder), absolute, in walk order. */
export function findEvalFiles(root: string, list: ListFolder = listFolder): string[] {
  const found: string[] = [];
  const seen = new Set<string>([realpathSync(root)]);
  const pending = [root];
  const enter = (folder: string, real: string): void => {
    if (seen.has(real)) return;
    seen.add(real);
    pending.push(folder);
  };
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    for (const entry of list(folder)) {
      if (skipped(entry.name)) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        // A folder reached directly may be one a link already led to.
        enter(path, target(path)?.real ?? path);
      } else if (entry.isSymbolicLink()) {
        const to = target(path);
        if (to?.folder) enter(path, to.real);
        // A dangling link that looks like an eval file is kept: loading it says what is wrong.
        else if (EVAL_FILE.test(entry.name)) found.push(path);
      } else if (EVAL_FILE.test(entry.name)) found.push(path);
    }
  }
  return found;
}
