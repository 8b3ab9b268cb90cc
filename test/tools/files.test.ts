import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileTools, FileToolError, WorkspaceEscapeError, type FileTools } from "../../src/tools/builtin/index.js";
import type { Tool } from "../../src/tools/index.js";
import { fakeContext } from "./fake-context.js";

let root: string;
let workspace: string;
let outside: string;
let readTool: FileTools[0];
let listTool: FileTools[1];
let writeTool: FileTools[2];

async function call<Args, Result>(tool: Tool<Args, Result>, args: unknown): Promise<Result> {
  return tool.run(tool.input.parse(args), fakeContext());
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "retrace-files-"));
  workspace = path.join(root, "workspace");
  outside = path.join(root, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "top secret");
  [readTool, listTool, writeTool] = fileTools({ workspace });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("file tools", () => {
  it("declare their governance: reads are safe and idempotent, writes destructive and not", () => {
    expect(readTool).toMatchObject({ name: "read_file", readOnly: true, idempotent: true, risk: "safe" });
    expect(listTool).toMatchObject({ name: "list_dir", readOnly: true, idempotent: true, risk: "safe" });
    expect(writeTool).toMatchObject({ name: "write_file", readOnly: false, idempotent: false, risk: "destructive" });
    expect(listTool.parameters).toMatchObject({ properties: { path: { type: "string", default: "." } } });
    expect(listTool.parameters.required ?? []).not.toContain("path");
  });

  it("write, read and list round-trip, creating missing folders", async () => {
    expect(await call(writeTool, { path: "notes/todo.md", content: "héllo" })).toEqual({ path: "notes/todo.md", bytes: 6 });
    expect(await call(readTool, { path: "notes/todo.md" })).toEqual({ path: "notes/todo.md", content: "héllo" });
    expect(await call(listTool, {})).toEqual({ path: ".", entries: [{ name: "notes", type: "dir" }] });
    expect(await call(listTool, { path: "notes" })).toEqual({ path: "notes", entries: [{ name: "todo.md", type: "file" }] });
  });

  it("write_file replaces an existing file", async () => {
    await call(writeTool, { path: "a.txt", content: "first, longer" });
    await call(writeTool, { path: "a.txt", content: "second" });
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("second");
  });

  it("list_dir sorts by code point, whatever the locale", async () => {
    for (const name of ["b.txt", "a.txt", "B.txt", "_x", "Ä.txt"]) await writeFile(path.join(workspace, name), "");
    const { entries } = await call(listTool, { path: "." });
    expect(entries.map((entry) => entry.name)).toEqual(["B.txt", "_x", "a.txt", "b.txt", "Ä.txt"]);
  });

  it("reports paths relative to the workspace, normalised", async () => {
    await writeFile(path.join(workspace, "b.txt"), "b");
    expect(await call(readTool, { path: "a/../b.txt" })).toEqual({ path: "b.txt", content: "b" });
    expect(await call(readTool, { path: "./b.txt" })).toEqual({ path: "b.txt", content: "b" });
    expect(await call(readTool, { path: path.join(workspace, "b.txt") })).toEqual({ path: "b.txt", content: "b" });
  });

  it("allows names that merely start with two dots", async () => {
    await call(writeTool, { path: "..notes", content: "fine" });
    expect((await call(readTool, { path: "..notes" })).content).toBe("fine");
  });

  it("follows a symlink that stays inside the workspace", async () => {
    await call(writeTool, { path: "docs/a.md", content: "A" });
    await symlink(path.join(workspace, "docs"), path.join(workspace, "alias"));
    expect(await call(readTool, { path: "alias/a.md" })).toEqual({ path: "alias/a.md", content: "A" });
    expect((await call(listTool, {})).entries).toEqual([
      { name: "alias", type: "dir" },
      { name: "docs", type: "dir" },
    ]);
  });
});

describe("workspace confinement", () => {
  const attempts: [string, () => string][] = [
    ["a parent-relative path", () => "../outside/secret.txt"],
    ["a bare parent path", () => "../x"],
    ["a path that climbs out after descending", () => "a/../../outside/secret.txt"],
    ["an absolute path outside", () => "/etc/passwd"],
    ["an absolute path into the sibling folder", () => path.join(outside, "secret.txt")],
    ["a NUL byte", () => "ok.txt\0../../x"],
  ];

  it.each(attempts)("read_file refuses %s", async (_, target) => {
    const error = await failure(call(readTool, { path: target() }));
    expect(error).toBeInstanceOf(WorkspaceEscapeError);
    expect(error).toMatchObject({ code: "workspace_escape", place: { path: target() } });
    expect((error as Error).message).toContain(JSON.stringify(target()));
  });

  it.each(attempts)("write_file refuses %s and writes nothing outside", async (_, target) => {
    await expect(call(writeTool, { path: target(), content: "pwned" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
    expect(await readdir(root)).toEqual(["outside", "workspace"]);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it.each(attempts)("list_dir refuses %s", async (_, target) => {
    await expect(call(listTool, { path: target() })).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });

  describe("through a symlinked folder that points outside", () => {
    beforeEach(async () => {
      await symlink(outside, path.join(workspace, "link"));
    });

    it("refuses to read, list or write through it", async () => {
      await expect(call(readTool, { path: "link/secret.txt" })).rejects.toThrow(/resolves outside the workspace through a symbolic link/);
      await expect(call(readTool, { path: "link/not-there.txt" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
      await expect(call(listTool, { path: "link" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
      await expect(call(writeTool, { path: "link/pwned.txt", content: "x" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
      await expect(call(writeTool, { path: "link/deeper/pwned.txt", content: "x" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
      expect(await readdir(outside)).toEqual(["secret.txt"]);
    });

    it("leaves it out of listings", async () => {
      await writeFile(path.join(workspace, "kept.txt"), "");
      expect((await call(listTool, {})).entries).toEqual([{ name: "kept.txt", type: "file" }]);
    });
  });

  it("refuses a symlinked file that points outside, for reading and for writing", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(workspace, "evil.txt"));
    await expect(call(readTool, { path: "evil.txt" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expect(call(writeTool, { path: "evil.txt", content: "pwned" })).rejects.toBeInstanceOf(WorkspaceEscapeError);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses to write through a dangling symlink, which would create its target wherever it points", async () => {
    await symlink(path.join(outside, "new.txt"), path.join(workspace, "dangling.txt"));
    await expect(call(writeTool, { path: "dangling.txt", content: "pwned" })).rejects.toThrow(/symbolic link whose target does not exist/);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });
});

describe("file errors", () => {
  it("reading a missing file is file_not_found, naming the path", async () => {
    const error = await failure(call(readTool, { path: "missing/nothing.txt" }));
    expect(error).toBeInstanceOf(FileToolError);
    expect(error).toMatchObject({ code: "file_not_found", message: "no such file or directory: missing/nothing.txt" });
  });

  it("reading a folder says to list it instead", async () => {
    await mkdir(path.join(workspace, "folder"));
    await expect(call(readTool, { path: "folder" })).rejects.toMatchObject({ code: "not_a_file", message: expect.stringMatching(/use list_dir/) });
  });

  it("listing a file is not_a_directory", async () => {
    await writeFile(path.join(workspace, "a.txt"), "");
    await expect(call(listTool, { path: "a.txt" })).rejects.toMatchObject({ code: "not_a_directory" });
  });

  it("writing under a file is not_a_directory", async () => {
    await writeFile(path.join(workspace, "a.txt"), "");
    await expect(call(writeTool, { path: "a.txt/b.txt", content: "" })).rejects.toMatchObject({ code: "not_a_directory" });
  });

  it("writing onto a folder is not_a_file", async () => {
    await mkdir(path.join(workspace, "folder"));
    await expect(call(writeTool, { path: "folder", content: "" })).rejects.toMatchObject({ code: "not_a_file" });
  });

  it("refuses files over the read limit, saying how large they are", async () => {
    const [smallRead] = fileTools({ workspace, maxReadBytes: 10 });
    await writeFile(path.join(workspace, "big.txt"), "x".repeat(11));
    await writeFile(path.join(workspace, "ok.txt"), "x".repeat(10));
    await expect(call(smallRead, { path: "big.txt" })).rejects.toMatchObject({
      code: "file_too_large",
      message: "big.txt is 11 bytes, more than the 10 bytes read_file returns",
    });
    expect((await call(smallRead, { path: "ok.txt" })).content).toHaveLength(10);
  });

  it("refuses binary files rather than returning mangled text", async () => {
    await writeFile(path.join(workspace, "image.bin"), Buffer.from([0xff, 0xd8, 0xff, 0x00]));
    await expect(call(readTool, { path: "image.bin" })).rejects.toMatchObject({ code: "file_not_text" });
  });

  it("a missing workspace folder is a clear error, not an escape", async () => {
    const [read] = fileTools({ workspace: path.join(root, "nope") });
    await expect(call(read, { path: "a.txt" })).rejects.toMatchObject({ code: "file_not_found", message: expect.stringMatching(/workspace folder .* does not exist/) });
  });
});
