/**
 * better-sqlite3 is given the path of its native addon, so that the `bindings` lookup (a stack
 * trace and a dozen places tried) is skipped, but only where that lookup would have found the
 * same file: a package that holds an addon it tries first keeps its own choice.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/index.js";
import { releaseAddon } from "../../src/store/sqlite-driver.js";
import { tempDir } from "../helpers.js";

function fakePackage(addons: string[]): string {
  const root = tempDir();
  for (const addon of addons) {
    mkdirSync(dirname(join(root, addon)), { recursive: true });
    writeFileSync(join(root, addon), "");
  }
  return root;
}

describe("loading better-sqlite3's native addon", () => {
  it("names build/Release's addon only when the lookup would take it too", () => {
    const release = "build/Release/better_sqlite3.node";
    const only = fakePackage([release]);
    expect(releaseAddon(only)).toBe(join(only, release));
    expect(releaseAddon(fakePackage([release, "build/better_sqlite3.node"]))).toBeUndefined();
    expect(releaseAddon(fakePackage([release, "build/Debug/better_sqlite3.node"]))).toBeUndefined();
    expect(releaseAddon(fakePackage(["lib/binding/node-v115-linux-x64/better_sqlite3.node"]))).toBeUndefined();
  });

  it("opens a database with the installed package's addon", () => {
    const installed = dirname(dirname(createRequire(import.meta.url).resolve("better-sqlite3")));
    expect(releaseAddon(installed)).toBe(join(installed, "build/Release/better_sqlite3.node"));
    const db = openDatabase(join(tempDir(), "a.db"));
    try {
      expect(db.prepare("SELECT 1 + 1 AS two").get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});
