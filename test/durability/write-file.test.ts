/**
 * write_file replaces a file atomically: the new content goes to a temporary file that is
 * renamed over the target, so a kill at any instant leaves the old file or the new one. A
 * hard link shows which happened: writing in place (truncate, then write) changes the file
 * both names share; a rename gives the target a new file and leaves the other name's alone.
 */
import { link, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileTools } from "../../src/tools/builtin/index.js";
import { tempDir } from "../helpers.js";
import { fakeContext } from "../tools/fake-context.js";

describe("write_file", () => {
  it("never writes into the existing file: it renames a complete new one over it, and leaves no temporary file", async () => {
    const workspace = tempDir("retrace-atomic-");
    const target = path.join(workspace, "notes.txt");
    await writeFile(target, "old content");
    const witness = path.join(workspace, "witness.txt");
    await link(target, witness);
    const write = fileTools({ workspace })[2];
    await write.run(write.input.parse({ path: "notes.txt", content: "new content" }), fakeContext());
    expect(await readFile(target, "utf8")).toBe("new content");
    // In place, the witness would read "new content" too (or "" after a kill between truncate and write).
    expect(await readFile(witness, "utf8")).toBe("old content");
    expect((await readdir(workspace)).sort()).toEqual(["notes.txt", "witness.txt"]);
  });
});
