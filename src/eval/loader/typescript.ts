/**
 * TypeScript eval modules turned into JavaScript by esbuild's `transform`, one file at a time,
 * cached by content hash in a temp folder, so an unchanged file costs a read. Used on the main
 * thread (a file imported from its rewritten copy, see self-imports.ts) and on the module hooks'
 * thread (hooks.ts). esbuild (a child process) starts on the first file the cache does not
 * hold, and `stopTypeScript` stops it with its child reaped; the next file starts it again.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { isAbsolute, join, relative } from "node:path";

type Esbuild = typeof import("esbuild");

// Required, not imported: this module is also part of the bundled runtime, which may not hold an import() of a package.
const require = createRequire(import.meta.url);
let esbuild: Esbuild | undefined;
let child: ChildProcess | undefined;
/** Compiled modules of this process by key, so a file compiled ahead is not read back from disk. */
const memo = new Map<string, string>();
/** The cache key's compiler part, read without loading esbuild (a warm cache never loads it). */
let esbuildVersion: string | undefined;
// The object esbuild's own require("child_process") returns, so a wrapped spawn is the one it calls.
const processes = require("node:child_process") as typeof import("node:child_process");

/** TypeScript's names for a relative specifier a TypeScript module writes that names no file (`./x.js` for `./x.ts`), in the order they are tried. */
export function typescriptNames(specifier: string): string[] {
  if (/\.jsx?$/.test(specifier)) return [specifier.replace(/\.js(x?)$/, ".ts$1"), specifier.replace(/\.jsx?$/, ".tsx")];
  if (specifier.endsWith(".mjs")) return [specifier.replace(/\.mjs$/, ".mts")];
  if (/\.[cm]?[jt]sx?$|\.json$/.test(specifier)) return [];
  return [`${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`];
}

/** Where compiled TypeScript is kept between runs: one folder per user, in the temp folder. */
export function typescriptCacheDir(): string {
  let user: string;
  try {
    user = String(userInfo().uid);
  } catch {
    user = "user";
  }
  return join(tmpdir(), `retrace-ts-cache-${user}`);
}

function compilerVersion(): string {
  if (esbuildVersion === undefined) {
    try {
      esbuildVersion = (JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")) as { version: string }).version;
    } catch {
      esbuildVersion = "unknown";
    }
  }
  return esbuildVersion;
}

/**
 * The running Node, by its whole version: esbuild takes `node20` for 20.0, which had no import
 * attributes, and dropped them (`import data from "./x.json" with { type: "json" }` then failed
 * to load).
 */
const TARGET = `node${process.versions.node}`;

/** The module's JavaScript: from the cache when this exact text (at this path) was compiled before. */
export async function compileTypeScript(file: string, source: string, cacheDir: string): Promise<string> {
  const key = createHash("sha256").update(`${compilerVersion()}\0${TARGET}\0${file}\0${source}`).digest("hex").slice(0, 32);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const cached = join(cacheDir, `${key}.mjs`);
  try {
    const text = readFileSync(cached, "utf8");
    memo.set(key, text);
    return text;
  } catch {
    // not compiled yet
  }
  const api = (esbuild ??= require("esbuild") as Esbuild);
  const result = await withChild(() =>
    api.transform(source, {
      loader: file.endsWith("x") ? "tsx" : "ts",
      format: "esm",
      platform: "node",
      target: TARGET,
      sourcefile: file,
      sourcemap: "inline",
      sourcesContent: false,
      tsconfigRaw: "{}",
      logLevel: "silent",
    }),
  ).catch((error: unknown) => {
    throw new Error(describeFailure(error, file));
  });
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: a concurrent run never reads half a file.
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, result.code);
    renameSync(partial, cached);
  } catch {
    // An unwritable cache only costs the next run a compile.
  }
  memo.set(key, result.code);
  return result.code;
}

/**
 * Where a JavaScript eval file's syntax error is, as "file:line:column: what", or undefined when
 * esbuild parses the file. Node 20 keeps the place of a syntax error in an ES module out of the
 * error it throws (it prints it only for an uncaught one), so a file that failed to load with a
 * SyntaxError is parsed again here, only then, to say where.
 */
export async function locateSyntaxError(file: string, source: string): Promise<string | undefined> {
  const api = (esbuild ??= require("esbuild") as Esbuild);
  try {
    await withChild(() => api.transform(source, { loader: "js", sourcefile: file, logLevel: "silent" }));
    return undefined;
  } catch (error) {
    return (error as { errors?: unknown[] }).errors?.length ? describeFailure(error, file) : undefined;
  }
}

/** The source map a compiled module carries inline (esbuild's), as JSON text. */
export function inlineSourceMap(code: string): string | undefined {
  const map = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(code)?.[1];
  return map === undefined ? undefined : Buffer.from(map, "base64").toString("utf8");
}

function describeFailure(error: unknown, file: string): string {
  const messages = (error as { errors?: { text: string; location: { line: number; column: number } | null }[] }).errors;
  if (!messages?.length) return `cannot compile ${file}: ${(error as Error).message}`;
  const shown = relative(process.cwd(), file);
  const where = shown && !shown.startsWith("..") && !isAbsolute(shown) ? shown : file;
  return messages
    .slice(0, 3)
    .map((message) => `${message.location ? `${where}:${message.location.line}:${message.location.column + 1}: ` : ""}${message.text}`)
    .join("; ");
}

/**
 * Runs `call`, noting the esbuild service's child process if the call starts it: esbuild's
 * stop() kills the child without waiting, and a child nobody waits for outlives the command.
 */
function withChild<T>(call: () => Promise<T>): Promise<T> {
  if (child) return call();
  const spawn = processes.spawn;
  processes.spawn = ((...args: Parameters<typeof spawn>) => (child = spawn.apply(processes, args))) as typeof spawn;
  try {
    // esbuild starts its service synchronously, inside the call.
    return call();
  } finally {
    processes.spawn = spawn;
  }
}

/** Stops esbuild and waits for its process to end; the next TypeScript file starts it again. */
export async function stopTypeScript(): Promise<void> {
  const api = esbuild;
  if (!api) return;
  const running = child;
  esbuild = undefined;
  child = undefined;
  await api.stop();
  if (running && running.exitCode === null && running.signalCode === null) {
    // esbuild unrefs its idle child: the wait must hold the event loop open itself.
    running.ref();
    await new Promise<void>((done) => running.once("exit", () => done()));
  }
}
