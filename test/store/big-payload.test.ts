/**
 * A long text is spliced into its event's bytes rather than copied, and SQLite is given those
 * bytes part by part: the stored bytes must still be exactly the canonical text, stored as TEXT,
 * in both stores, whether or not the text needs escapes.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalParts, canonicalText } from "../../src/canonical/index.js";
import { manualClock } from "../../src/context/index.js";
import { MemoryRunStore, RunLog, SqliteRunStore } from "../../src/store/index.js";
import { tempDir } from "../helpers.js";

const LONG = 70 * 1024;

describe("an event with a long text", () => {
  it.each([
    ["plain", "a".repeat(LONG)],
    ["with escapes", `${"line\n".repeat(LONG / 5)}"quoted" \\ end`],
    ["with non-ASCII and an emoji", `${"é".repeat(LONG)} 😀`],
  ])("is stored as its canonical bytes, as TEXT, by both stores (%s)", (_name, text) => {
    const path = join(tempDir(), "runs.db");
    const sqlite = new SqliteRunStore(path);
    const memory = new MemoryRunStore();
    const written = [sqlite, memory].map((store) => {
      const log = RunLog.create("r", store, manualClock(Date.UTC(2026, 0, 1), 1));
      return log.appendAll([
        { type: "message", role: "user", content: "hi" },
        { type: "tool.finished", callId: "c", name: "t", result: { text, n: 1, list: [text.slice(0, 10), text] } },
      ]);
    });
    expect(written[0]).toStrictEqual(written[1]);
    const expected = (written[0] ?? []).map((event) => canonicalJson(event));
    expect(sqlite.readRaw("r")).toEqual(expected);
    expect(memory.readRaw("r")).toEqual(expected);
    expect(sqlite.read("r")).toStrictEqual(written[0]);
    sqlite.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT DISTINCT typeof(body) AS kind FROM events").pluck().all()).toEqual(["text"]);
    db.close();
  });

  it("is written in parts that join to the canonical text, the long string a part of its own", () => {
    const text = "b".repeat(LONG);
    const form = canonicalCopy({ z: 1, text, a: [text] });
    const parts = canonicalParts(form);
    expect(parts.join("")).toBe(canonicalJson({ z: 1, text, a: [text] }));
    expect(canonicalText(form)).toBe(parts.join(""));
    expect(parts.filter((part) => part === text)).toHaveLength(2);
    expect(canonicalParts(canonicalCopy({ short: "x" }))).toEqual(['{"short":"x"}']);
  });
});
