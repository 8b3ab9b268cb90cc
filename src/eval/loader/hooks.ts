/**
 * The module hooks eval files are loaded through (registered with `module.register`, so they
 * run on Node's hooks thread). Only what Node cannot do by itself:
 *
 * - `retrace-agents` (or `retrace`, the command's name), when the eval file's project does not
 *   have it installed, resolves to the copy of Retrace that is running — the very modules the
 *   CLI has loaded, so the file's `defineEval` is the runner's;
 * - TypeScript (`.ts`, `.mts`, `.tsx`) is turned into JavaScript one file at a time by esbuild's
 *   `transform`, cached by content hash in a temp folder, so an unchanged file costs a read;
 *   a TypeScript module's `./x.js` import finds `./x.ts`, as tsc's NodeNext resolution does.
 *
 * Everything else — import.meta, package resolution, module identity — is Node's own. esbuild
 * (a child process) starts on the first file the cache does not hold, and stops, with its
 * child reaped, when the main thread asks (see `stopCompiler` in register.ts).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { createRequire, type InitializeHook, type LoadHook, type ResolveHook } from "node:module";
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { MessagePort } from "node:worker_threads";

export interface HooksData {
  /** Retrace's package root, as a file: URL ending in "/". */
  ownRoot: string;
  /** Where compiled TypeScript is cached. */
  cacheDir: string;
  port: MessagePort;
}

/** From the main thread: compile these files ahead (untimed, in parallel), or stop esbuild. */
export type HooksRequest = { id: number; type: "prepare"; files: string[] } | { id: number; type: "stop" };
/** To the main thread: a compiled module's source map (the runner maps failures through it), or a request done. */
export type HooksMessage = { type: "map"; file: string; map: string } | { type: "done"; id: number };

let data: HooksData | undefined;

export const initialize: InitializeHook<HooksData> = (given) => {
  data = given;
  given.port.on("message", (request: HooksRequest) => {
    const work =
      request.type === "stop"
        ? stop()
        : Promise.all(request.files.map((file) => compiled(file, readFileSync(file, "utf8")).catch(() => undefined)));
    void work.then(() => given.port.postMessage({ type: "done", id: request.id } satisfies HooksMessage));
  });
  given.port.unref();
};

const SELF = /^(?:retrace-agents|retrace)(\/.*)?$/;
const TYPESCRIPT = /\.(?:m?ts|tsx)$/;

function notFound(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED";
}

/** TypeScript's names for a `.js`-style specifier written in a TypeScript module. */
function typescriptNames(specifier: string): string[] {
  if (/\.jsx?$/.test(specifier)) return [specifier.replace(/\.js(x?)$/, ".ts$1"), specifier.replace(/\.jsx?$/, ".tsx")];
  if (specifier.endsWith(".mjs")) return [specifier.replace(/\.mjs$/, ".mts")];
  if (/\.[cm]?[jt]sx?$|\.json$/.test(specifier)) return [];
  return [`${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`];
}

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!notFound(error) || !data) throw error;
    const self = SELF.exec(specifier);
    // Resolved from Retrace's own package.json: a package may import itself by its name.
    if (self) return nextResolve(`retrace-agents${self[1] ?? ""}`, { ...context, parentURL: new URL("package.json", data.ownRoot).href });
    if (/^\.{1,2}\//.test(specifier) && context.parentURL && TYPESCRIPT.test(new URL(context.parentURL).pathname)) {
      for (const name of typescriptNames(specifier)) {
        try {
          return await nextResolve(name, context);
        } catch {
          // not this one
        }
      }
    }
    throw error;
  }
};

export const load: LoadHook = async (url, context, nextLoad) => {
  if (!url.startsWith("file:") || !TYPESCRIPT.test(new URL(url).pathname) || url.includes("/node_modules/")) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = readFileSync(file, "utf8");
  const code = await compiled(file, source);
  const map = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(code)?.[1];
  if (map && data) data.port.postMessage({ type: "map", file, map: Buffer.from(map, "base64").toString("utf8") } satisfies HooksMessage);
  return { format: "module", source: code, shortCircuit: true };
};

type Esbuild = typeof import("esbuild");
let esbuild: Promise<Esbuild> | undefined;
let child: ChildProcess | undefined;
/** Compiled modules of this process by key, so a file prepared ahead is not read back from disk. */
const memo = new Map<string, string>();
/** The cache key's compiler part, read without loading esbuild (a warm cache never loads it). */
const ESBUILD_VERSION = (() => {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
})();
// The object esbuild's own require("child_process") returns, so a wrapped spawn is the one it calls.
const processes = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");

/** The module's JavaScript: from the cache when this exact text (at this path) was compiled before. */
async function compiled(file: string, source: string): Promise<string> {
  const key = createHash("sha256").update(`${ESBUILD_VERSION}\0${file}\0${source}`).digest("hex").slice(0, 32);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const cached = join((data as HooksData).cacheDir, `${key}.mjs`);
  try {
    const text = readFileSync(cached, "utf8");
    memo.set(key, text);
    return text;
  } catch {
    // not compiled yet
  }
  const api = await (esbuild ??= import("esbuild"));
  const result = await withChild(() =>
    api.transform(source, {
      loader: file.endsWith("x") ? "tsx" : "ts",
      format: "esm",
      platform: "node",
      target: `node${process.versions.node.split(".")[0]}`,
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
    mkdirSync((data as HooksData).cacheDir, { recursive: true });
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
async function stop(): Promise<void> {
  if (!esbuild) return;
  const api = await esbuild;
  const running = child;
  esbuild = undefined;
  child = undefined;
  await api.stop();
  if (running && running.exitCode === null && running.signalCode === null) {
    await new Promise<void>((done) => running.once("exit", () => done()));
  }
}
