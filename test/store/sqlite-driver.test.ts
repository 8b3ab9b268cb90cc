/**
 * better-sqlite3 is given the path of its native addon, so that the `bindings` lookup (a stack
 * trace and a dozen places tried) is skipped, but only where that lookup would have found the
 * same file: a package that holds an addon it tries first keeps its own choice.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { sqliteFileFacts } from "../../src/store/index.js";
import { driverOptions, openDatabase, releaseAddon } from "../../src/store/sqlite-driver.js";
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

  it("opens a database with the addon's path, unless the caller names one", () => {
    expect(driverOptions({ readonly: true }, "/x/better_sqlite3.node")).toEqual({ readonly: true, nativeBinding: "/x/better_sqlite3.node" });
    expect(driverOptions({ nativeBinding: "/mine.node" }, "/x/better_sqlite3.node")).toEqual({ nativeBinding: "/mine.node" });
    expect(driverOptions({ readonly: true }, undefined)).toEqual({ readonly: true });
    const installed = dirname(dirname(createRequire(import.meta.url).resolve("better-sqlite3")));
    const addon = releaseAddon(installed);
    // An install with its own build/ or build/Debug/ addon keeps the lookup; this one has neither.
    expect(addon).toBe(join(installed, "build/Release/better_sqlite3.node"));
    const file = join(tempDir(), "a.db");
    const db = openDatabase(file, { nativeBinding: addon as string });
    try {
      db.exec("CREATE TABLE b (x); CREATE TABLE a (y); PRAGMA user_version = 7");
    } finally {
      db.close();
    }
    expect(sqliteFileFacts(file)).toEqual({ version: 7, tables: ["a", "b"] });
  });
});
