/**
 * A long text is spliced into its event's bytes rather than copied: the stored bytes must still
 * be exactly the canonical text, stored as TEXT, in both stores, whether or not the text needs
 * escapes.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { canonicalCopy, canonicalJson, canonicalText } from "../../src/canonical/index.js";
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

  it("is spliced into the text as it is, and the text is still the canonical one", () => {
    const text = "b".repeat(LONG);
    const form = canonicalCopy({ z: 1, text, a: [text] });
    expect(form.big).toBe(true);
    expect(canonicalText(form)).toBe(`{"a":["${text}"],"text":"${text}","z":1}`);
    expect(canonicalText(canonicalCopy({ text: `${text}\n` }))).toBe(JSON.stringify({ text: `${text}\n` }));
  });
});
