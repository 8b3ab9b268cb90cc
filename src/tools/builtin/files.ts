/** `read_file`, `list_dir` and `write_file`, confined to one workspace folder. */
import { constants } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { FileToolError, RetraceError, WorkspaceEscapeError } from "../../errors/index.js";
import { defineTool, type Tool } from "../define.js";
import { compareCodePoints } from "../../retrieval/bm25.js";
import { Workspace } from "./workspace.js";

export const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

export interface FileToolsOptions {
  /** The folder the tools may read and write; it must exist. */
  workspace: string;
  /** Larger files are refused with `file_too_large` rather than flooding the model's context. */
  maxReadBytes?: number;
}

const WorkspacePath = z.string().min(1).describe("A path relative to the workspace folder, e.g. `notes/todo.md`.");

export const ReadFileInput = z.object({ path: WorkspacePath });
export const ListDirInput = z.object({ path: WorkspacePath.default(".") });
export const WriteFileInput = z.object({ path: WorkspacePath, content: z.string().describe("The whole new content, UTF-8.") });

export type ReadFileArgs = z.infer<typeof ReadFileInput>;
export type ListDirArgs = z.infer<typeof ListDirInput>;
export type WriteFileArgs = z.infer<typeof WriteFileInput>;
export interface ReadFileResult {
  path: string;
  content: string;
}
export interface DirEntry {
  name: string;
  type: "file" | "dir";
}
export interface ListDirResult {
  path: string;
  entries: DirEntry[];
}
export interface WriteFileResult {
  path: string;
  bytes: number;
}

export type FileTools = readonly [Tool<ReadFileArgs, ReadFileResult>, Tool<ListDirArgs, ListDirResult>, Tool<WriteFileArgs, WriteFileResult>];

// Opening with O_NOFOLLOW closes the gap between checking a path and using it, should a
// symlink appear there meanwhile. Windows has no such flag (and no such symlinks by default).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

export function fileTools(options: FileToolsOptions): FileTools {
  const workspace = new Workspace(options.workspace);
  return [readFileTool(workspace, options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES), listDirTool(workspace), writeFileTool(workspace)];
}

function readFileTool(workspace: Workspace, maxReadBytes: number): Tool<ReadFileArgs, ReadFileResult> {
  return defineTool({
    name: "read_file",
    description: `Reads a UTF-8 text file from the workspace (at most ${maxReadBytes} bytes).`,
    input: ReadFileInput,
    idempotent: true,
    pathArgs: ["path"],
    pathRoot: workspace.root,
    readOnly: true,
    risk: "safe",
    async run({ path: input }) {
      const { display, real } = await workspace.resolveExisting(input);
      // Checked before opening: opening a FIFO would block until something writes to it.
      const stats = await stat(real);
      if (stats.isDirectory()) throw new FileToolError("not_a_file", `${display} is a directory; use list_dir to see what it holds`, display);
      if (!stats.isFile()) throw new FileToolError("not_a_file", `${display} is not a regular file`, display);
      if (stats.size > maxReadBytes) throw tooLarge(display, stats.size, maxReadBytes);
      const handle = await openConfined(input, real, constants.O_RDONLY);
      let bytes: Buffer;
      try {
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
      if (bytes.length > maxReadBytes) throw tooLarge(display, bytes.length, maxReadBytes);
      let content: string;
      try {
        content = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw new FileToolError("file_not_text", `${display} is not UTF-8 text`, display);
      }
      return { path: display, content };
    },
  });
}

function listDirTool(workspace: Workspace): Tool<ListDirArgs, ListDirResult> {
  return defineTool({
    name: "list_dir",
    description: 'Lists the files and folders in a workspace folder (default: the workspace itself), sorted by name.',
    input: ListDirInput,
    idempotent: true,
    pathArgs: ["path"],
    pathRoot: workspace.root,
    readOnly: true,
    risk: "safe",
    async run({ path: input }) {
      const { display, real } = await workspace.resolveExisting(input);
      if (!(await stat(real)).isDirectory()) throw new FileToolError("not_a_directory", `${display} is not a directory`, display);
      const entries: DirEntry[] = [];
      for (const dirent of await readdir(real, { withFileTypes: true })) {
        const type = dirent.isSymbolicLink() ? await linkType(workspace, `${display}/${dirent.name}`) : direntType(dirent);
        if (type) entries.push({ name: dirent.name, type });
      }
      // Code-point order, not localeCompare: the listing must not depend on the machine's locale.
      entries.sort((a, b) => compareCodePoints(a.name, b.name));
      return { path: display, entries };
    },
  });
}

function writeFileTool(workspace: Workspace): Tool<WriteFileArgs, WriteFileResult> {
  return defineTool({
    name: "write_file",
    description: "Writes a UTF-8 text file in the workspace, replacing it if it exists and creating missing folders.",
    input: WriteFileInput,
    idempotent: false,
    pathArgs: ["path"],
    pathRoot: workspace.root,
    readOnly: false,
    risk: "destructive",
    async run({ path: input, content }) {
      // The configured folder itself is trusted: the first write creates it.
      await mkdir(workspace.root, { recursive: true });
      const { display, real } = await workspace.resolveForWrite(input);
      try {
        await mkdir(path.dirname(real), { recursive: true });
      } catch (error) {
        if (errorCode(error) === "ENOTDIR" || errorCode(error) === "EEXIST") {
          throw new FileToolError("not_a_directory", `cannot create ${display}: a file is in the way of its folder`, display);
        }
        throw error;
      }
      await atomicWrite(input, display, real, content);
      return { path: display, bytes: Buffer.byteLength(content, "utf8") };
    },
  });
}

let temporaries = 0;

/**
 * Writes the whole content to a new file next to the target, flushes it, then renames it over
 * the target: a process killed at any instant leaves the old file or the new one, never a
 * truncated or half-written one. (Opening the target with O_TRUNC and then writing would leave
 * a 0-byte file to a kill between the two.) The rename replaces a symbolic link at the target
 * rather than writing through it.
 */
async function atomicWrite(input: string, display: string, real: string, content: string): Promise<void> {
  const stats = await stat(real).catch(() => undefined);
  if (stats?.isDirectory()) throw new FileToolError("not_a_file", `${display} is a directory`, display);
  const temporary = path.join(path.dirname(real), `.${path.basename(real)}.${process.pid}.${++temporaries}.retrace-tmp`);
  const handle = await openConfined(input, temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  try {
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, real);
  } catch (error) {
    await rm(temporary, { force: true });
    if (errorCode(error) === "EISDIR") throw new FileToolError("not_a_file", `${display} is a directory`, display);
    throw error;
  }
}

async function openConfined(input: string, real: string, flags: number): Promise<FileHandle> {
  try {
    return await open(real, flags | NO_FOLLOW, 0o666);
  } catch (error) {
    if (errorCode(error) === "ELOOP") throw new WorkspaceEscapeError(input, "became a symbolic link while it was being opened");
    throw error;
  }
}

/** A symlink is listed as what it points to, and left out if it points outside or nowhere. */
async function linkType(workspace: Workspace, display: string): Promise<DirEntry["type"] | undefined> {
  try {
    const { real } = await workspace.resolveExisting(display);
    return direntType(await stat(real));
  } catch (error) {
    if (error instanceof RetraceError) return undefined;
    throw error;
  }
}

function direntType(entry: { isFile(): boolean; isDirectory(): boolean }): DirEntry["type"] | undefined {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  return undefined;
}

function tooLarge(display: string, size: number, max: number): FileToolError {
  return new FileToolError("file_too_large", `${display} is ${size} bytes, more than the ${max} bytes read_file returns`, display);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
