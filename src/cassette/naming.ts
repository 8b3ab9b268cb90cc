import { basename, dirname, extname, join } from "node:path";

/** A file name any system takes: path separators, reserved and control characters replaced. */
export function safeFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f<>:"/\\|?*]+/g, "_").replace(/^\.+/, "_").slice(0, 180);
}

/**
 * `__cassettes__/<source file without its extension>/<name>.json` beside the source file, as
 * snapshot files are kept (`math.eval.ts` → `__cassettes__/math.eval/adds.json`). The folder
 * does not keep the extension: a folder named `math.eval.ts` would look like an eval file.
 */
export function besideSource(sourceFile: string, name: string, dir = dirname(sourceFile)): string {
  const base = basename(sourceFile);
  return join(dir, "__cassettes__", base.slice(0, base.length - extname(base).length), `${safeFileName(name)}.json`);
}
