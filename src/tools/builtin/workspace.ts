/**
 * Confines tool paths to one workspace folder. A path is checked twice: lexically (`..`,
 * absolute paths) and after following symlinks (a link inside may point outside), because
 * either check alone lets something through.
 */
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { FileToolError, WorkspaceEscapeError } from "../../errors/index.js";

export interface ResolvedPath {
  /** The path as the tools report it: relative to the workspace, `/`-separated, "." for the root. */
  display: string;
  /** Where the file really is (or will be), with every existing symlink resolved. */
  real: string;
}

export class Workspace {
  readonly root: string;
  private rootReal: Promise<string> | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** A path that must already exist (read, list). */
  async resolveExisting(input: string): Promise<ResolvedPath> {
    const { lexical, display } = await this.lexical(input);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (error) {
      if (!isMissing(error)) throw error;
      // Missing behind a symlink that leads outside is an escape, not a hint about the outside tree.
      await this.resolveForWrite(input);
      throw new FileToolError("file_not_found", `no such file or directory: ${display}`, display);
    }
    await this.assertInside(input, real);
    return { display, real };
  }

  /**
   * A path that may not exist yet (write): the nearest existing ancestor is resolved, so a
   * symlinked folder that points outside is caught before anything is created under it.
   */
  async resolveForWrite(input: string): Promise<ResolvedPath> {
    const { lexical, display } = await this.lexical(input);
    const missing: string[] = [];
    let existing = lexical;
    for (;;) {
      const real = await realpath(existing).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (real !== undefined) {
        await this.assertInside(input, real);
        return { display, real: path.join(real, ...missing) };
      }
      // A dangling symlink would be followed by the write and create its target, wherever that is.
      if (await isSymlink(existing)) throw new WorkspaceEscapeError(input, "goes through a symbolic link whose target does not exist");
      if (existing === this.root) throw new FileToolError("file_not_found", `workspace folder ${this.root} does not exist`, this.root);
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }

  private async lexical(input: string): Promise<{ lexical: string; display: string }> {
    if (input.includes("\0")) throw new WorkspaceEscapeError(input, "contains a NUL byte");
    const lexical = path.resolve(this.root, input);
    // An absolute path may name the workspace by its real path (e.g. /private/tmp on macOS).
    const base = [this.root, await this.realRoot()].find((root) => isInside(root, lexical));
    if (base === undefined) throw new WorkspaceEscapeError(input, "is outside the workspace");
    const display = path.relative(base, lexical).split(path.sep).join("/") || ".";
    return { lexical: path.join(this.root, path.relative(base, lexical)), display };
  }

  private async assertInside(input: string, real: string): Promise<void> {
    if (!isInside(await this.realRoot(), real)) {
      throw new WorkspaceEscapeError(input, "resolves outside the workspace through a symbolic link");
    }
  }

  private realRoot(): Promise<string> {
    this.rootReal ??= realpath(this.root).catch((error: unknown) => {
      this.rootReal = undefined;
      if (isMissing(error)) throw new FileToolError("file_not_found", `workspace folder ${this.root} does not exist`, this.root);
      throw error;
    });
    return this.rootReal;
  }
}

export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // "..notes" is a file name inside; only ".." itself or a "../" prefix leaves.
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

async function isSymlink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}
