import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { retrace } from "./run-cli.js";

/**
 * Hostile command lines, each in a real process of the built CLI: every one must end in a
 * typed error (exit 2) that names the problem, never an `internal error` with a stack trace,
 * and no --db file that is not a run store may be changed by the attempt.
 */
const dir = tempDir("retrace-hostile-");
const sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
const file = (name: string, text: string | Buffer) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
mkdirSync(join(dir, "folder.db"));
const notSqlite = file("notes.db", "these are my notes, not a database\n");
const empty = file("empty.db", "");
const truncated = file("truncated.db", Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(84, 7)]));
const foreign = join(dir, "foreign.db");
{
  const db = new sqlite(foreign);
  db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');");
  db.close();
}
const newer = join(dir, "newer.db");
{
  const db = new sqlite(newer);
  db.exec("CREATE TABLE events (run_id TEXT, seq INTEGER, type TEXT, body TEXT)");
  db.pragma("user_version = 99");
  db.close();
}
const guarded = [notSqlite, empty, truncated, foreign, newer];
const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const before = new Map(guarded.map((path) => [path, digest(path)]));
const hello = ["examples/hello/agent.yaml", "-m", "hi", "--mock", "examples/hello/mock.yaml"];

const cases: { args: string[]; says: RegExp }[] = [
  { args: ["runs", "--limit", "abc"], says: /--limit must be a whole number of at least 1, got "abc"/ },
  { args: ["runs", "--limit=-3"], says: /--limit must be a whole number/ },
  { args: ["runs", "--limit", "1e400"], says: /--limit must be a whole number/ },
  { args: ["runs", "--limit", "99999999999999999999"], says: /--limit must be a whole number/ },
  { args: ["runs", "--limit"], says: /runs: .*--limit/ },
  { args: ["runs", "--db", join(dir, "folder.db")], says: /folder\.db: is a folder, not a run store file/ },
  { args: ["runs", "--db", "/dev/null"], says: /\/dev\/null: is not a regular file/ },
  { args: ["runs", "--db", notSqlite], says: /notes\.db: is not an SQLite file/ },
  { args: ["runs", "--db", empty], says: /empty\.db: is an empty file, not a Retrace run store/ },
  { args: ["trace", "r1", "--db", truncated], says: /truncated\.db: (cannot be read as a run store|is an SQLite database but not)/ },
  { args: ["trace", "r1", "--db", foreign], says: /foreign\.db: is an SQLite database but not a Retrace run store \(its tables are users\)/ },
  { args: ["approve", "r1", "c1", "--db", newer], says: /newer\.db: this run store uses schema version 99, written by a newer Retrace/ },
  { args: ["resume", "r1", "--db", notSqlite], says: /notes\.db: is not an SQLite file/ },
  { args: ["run", ...hello, "--db", foreign], says: /foreign\.db: is an SQLite database but not a Retrace run store/ },
  { args: ["run", ...hello, "--db", join(notSqlite, "x.db")], says: /cannot open the run store/ },
  { args: ["run", ...hello, "--db", join(dir, "folder.db")], says: /is a folder/ },
  { args: ["runs", "--lmit", "3"], says: /unknown option --lmit \(did you mean --limit\?\)/ },
  { args: ["trace", "--db"], says: /trace: .*--db/ },
  { args: ["approve", "r1"], says: /approve: missing <runId> <callId>/ },
  { args: ["constructor"], says: /unknown command "constructor"/ },
  { args: ["__proto__", "--help"], says: /unknown command "__proto__"/ },
  { args: ["run", "examples/hello/agent.yaml", "-m", "hi", "--mock", join(dir, "folder.db")], says: /folder\.db/ },
];

describe("hostile command lines: a typed error and exit 2, never a stack trace", () => {
  afterAll(() => {
    for (const [path, sum] of before) expect(digest(path), `${path} was modified`).toBe(sum);
  });

  // One process per case, each with its own timeout: a busy machine slows them all evenly.
  it.each(cases)("retrace $args", async ({ args, says }) => {
    const result = await retrace(args);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(result.stderr).toMatch(says);
    expect(result.code).toBe(2);
  });
});
