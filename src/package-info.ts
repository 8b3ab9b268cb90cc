/**
 * Retrace's npm identity. The command is `retrace`, but the npm name `retrace` belongs to an
 * unrelated package, so Retrace is installed and imported as `retrace-agents`; everything that
 * needs the name (eval-file resolution, version lookup, the scaffold) takes it from here.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_NAME = "retrace-agents";

/** A bare import of Retrace itself: the package or one of its subpaths (`/testing`, `/vitest`). */
export const SELF_SPECIFIER = new RegExp(`^${PACKAGE_NAME}(?:/.*)?$`);

export interface OwnPackage {
  /** The folder holding Retrace's package.json: the checkout, or node_modules/retrace-agents. */
  root: string;
  version: string;
  /** Its package.json `exports` (empty for a copy without its package.json). */
  exports: Readonly<Record<string, string | { default?: string; import?: string }>>;
}

let found: OwnPackage | undefined;

/** The running Retrace's package folder and version, whether it runs from source or from the build. */
export function ownPackage(): OwnPackage {
  if (found) return found;
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  // src/ from source, dist/src/ from the build: the package root is one or two levels up.
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown; exports?: OwnPackage["exports"] };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === "string") return (found = { root: dir, version: pkg.version, exports: pkg.exports ?? {} });
    } catch {
      // no package.json here, or not ours; keep climbing
    }
    dir = dirname(dir);
  }
  // A copy without its package.json (bundled into something else): resolution falls back to
  // this folder's parent, and the version is unknown.
  return (found = { root: dirname(here), version: "0.0.0", exports: {} });
}
