import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";

type Driver = typeof Database;
type Options = Database.Options;

let loaded: { driver: Driver; addon: string | undefined } | undefined;

/**
 * better-sqlite3, loaded on first use (what never opens a store, `eval-test --mock`, never pays
 * for it), with the path of its native addon when it is where the `bindings` lookup would take
 * it from anyway. That lookup works out the package's folder from a stack trace and tries a
 * dozen places in turn: ~2.5 ms of every command that opens a store (`run`, `runs`, `trace`).
 * Its first candidates are build/ and build/Debug/; a package with either is left to it.
 */
function sqlite(): { driver: Driver; addon: string | undefined } {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const driver = require("better-sqlite3") as Driver;
  let addon: string | undefined;
  try {
    addon = releaseAddon(dirname(dirname(require.resolve("better-sqlite3"))));
  } catch {
    // Left to the lookup.
  }
  loaded = { driver, addon };
  return loaded;
}

/** The package's build/Release addon, when no candidate the lookup tries before it exists. Internal. */
export function releaseAddon(packageRoot: string): string | undefined {
  const build = join(packageRoot, "build");
  const release = join(build, "Release", "better_sqlite3.node");
  const earlier = [join(build, "better_sqlite3.node"), join(build, "Debug", "better_sqlite3.node")];
  return !earlier.some((file) => existsSync(file)) && existsSync(release) ? release : undefined;
}

/** The options better-sqlite3 is opened with: `options`, and the addon's path when it is known. Internal. */
export function driverOptions(options: Options, addon: string | undefined): Options {
  return addon === undefined || options.nativeBinding !== undefined ? options : { ...options, nativeBinding: addon };
}

/** Opens an SQLite database with better-sqlite3. */
export function openDatabase(path: string, options: Options = {}): Database.Database {
  const { driver, addon } = sqlite();
  return new driver(path, driverOptions(options, addon));
}
