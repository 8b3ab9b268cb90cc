/**
 * The module hooks eval files are loaded through (registered with `module.register`, so they
 * run on Node's hooks thread). Only what Node cannot do by itself:
 *
 * - `retrace-agents` (or `retrace`, the command's name), when the eval file's project does not
 *   have it installed, resolves to the copy of Retrace that is running — the very modules the
 *   CLI has loaded, so the file's `defineEval` is the runner's;
 * - TypeScript (`.ts`, `.mts`, `.tsx`) is turned into JavaScript (typescript.ts) when a file
 *   could not be imported from a compiled copy; a TypeScript module's `./x.js` import finds
 *   `./x.ts`, as tsc's NodeNext resolution does.
 *
 * Everything else — import.meta, package resolution, module identity — is Node's own. esbuild
 * stops, with its child reaped, when the main thread asks (see `stopCompiler` in register.ts).
 */
import { readFileSync } from "node:fs";
import type { InitializeHook, LoadHook, ResolveFnOutput, ResolveHook, ResolveHookContext } from "node:module";
import { fileURLToPath } from "node:url";
import type { MessagePort } from "node:worker_threads";
import { ownPackage, PACKAGE_NAME } from "../../package-info.js";
import { compileTypeScript, inlineSourceMap, stopTypeScript, typescriptNames } from "./typescript.js";

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
        ? stopTypeScript()
        : // A file that cannot be read or compiled fails its own import, not this thread (whose
          // uncaught error ends the process at once, with no report).
          Promise.all(request.files.map((file) => Promise.resolve(file).then((path) => compiled(path, readFileSync(path, "utf8"))).catch(() => undefined)));
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

type NextResolve = Parameters<ResolveHook>[2];

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!notFound(error) || !data) throw error;
    const self = SELF.exec(specifier);
    // Resolved from Retrace's own package.json: a package may import itself by its name.
    if (self) return resolveOwn(specifier, self[1] ?? "", context, nextResolve, data.ownRoot);
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

/**
 * Retrace's own module for `retrace-agents[/sub]`, resolved from its own package.json (a package
 * may import itself by its name). A subpath it does not export is the importing file's mistake,
 * so the error names that file and the subpaths there are, not Retrace's package.json.
 */
async function resolveOwn(specifier: string, subpath: string, context: ResolveHookContext, nextResolve: NextResolve, ownRoot: string): Promise<ResolveFnOutput> {
  // Taken first: Node merges the context given to nextResolve into this one.
  const parent = context.parentURL;
  try {
    return await nextResolve(`${PACKAGE_NAME}${subpath}`, { ...context, parentURL: new URL("package.json", ownRoot).href });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw error;
    const from = parent?.startsWith("file:") ? fileURLToPath(parent) : parent;
    const known = Object.keys(ownPackage().exports).filter((key) => !key.endsWith(".json")).map((key) => PACKAGE_NAME + key.slice(1));
    throw Object.assign(new Error(`"${specifier}"${from ? ` (imported from ${from})` : ""} is not a module of Retrace; its modules are ${known.join(", ")}`), {
      code: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
  }
}

export const load: LoadHook = async (url, context, nextLoad) => {
  if (!url.startsWith("file:") || !TYPESCRIPT.test(new URL(url).pathname) || url.includes("/node_modules/")) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = readFileSync(file, "utf8");
  const code = await compiled(file, source);
  const map = inlineSourceMap(code);
  if (map && data) data.port.postMessage({ type: "map", file, map } satisfies HooksMessage);
  return { format: "module", source: code, shortCircuit: true };
};

/** The module's JavaScript, compiled (or read from the cache) for the hooks' cache folder. */
function compiled(file: string, source: string): Promise<string> {
  return compileTypeScript(file, source, (data as HooksData).cacheDir);
}
