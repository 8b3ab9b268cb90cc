/**
 * Registers the eval-file module hooks (hooks.ts) once per process, on first need: a process
 * whose eval files are JavaScript importing an installed Retrace never starts the hooks thread
 * (measured at ~20 ms and ~10 MiB on these machines).
 */
import { register } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { ownPackage } from "../../package-info.js";
import type { HooksData, HooksMessage, HooksRequest } from "./hooks.js";
import { registerSourceMap } from "./source-maps.js";
import { typescriptCacheDir } from "./typescript.js";

let port: MessagePort | undefined;
const waiting = new Map<number, () => void>();
let lastId = 0;

/**
 * The hooks module as Node can load it, on their own thread: always the built file, since this
 * one runs from source under vitest and from the bundled runtime in the package.
 */
function hooksModule(): URL {
  return pathToFileURL(join(ownPackage().root, "dist/src/eval/loader/hooks.js"));
}

/** Makes later imports go through the eval-file hooks (self-resolution of Retrace, TypeScript). */
export function useEvalHooks(): void {
  if (port) return;
  const channel = new MessageChannel();
  port = channel.port1;
  port.on("message", (message: HooksMessage) => {
    if (message.type === "map") registerSourceMap(message.file, message.map);
    else waiting.get(message.id)?.();
  });
  port.unref();
  const data: HooksData = { ownRoot: pathToFileURL(`${ownPackage().root}/`).href, cacheDir: typescriptCacheDir(), port: channel.port2 };
  register(hooksModule(), { data, transferList: [channel.port2] });
}

/** Sends a request to the hooks thread and waits for it to be done (nothing to wait for before the hooks are registered). */
async function ask(request: { type: "prepare"; files: string[] } | { type: "stop" }): Promise<void> {
  const open = port;
  if (!open) return;
  const id = ++lastId;
  open.ref();
  try {
    await new Promise<void>((done) => {
      waiting.set(id, done);
      open.postMessage({ ...request, id } satisfies HooksRequest);
    });
  } finally {
    waiting.delete(id);
    if (waiting.size === 0) open.unref();
  }
}

/**
 * Compiles these TypeScript files ahead, in parallel: their imports then only read the result,
 * and a file's load timeout measures its top level, not the compiler's start.
 */
export function prepareTypeScript(files: readonly string[]): Promise<void> {
  return files.length ? ask({ type: "prepare", files: [...files] }) : Promise.resolve();
}

/**
 * Stops the TypeScript compiler (esbuild's service, a child process) and waits until its
 * process has ended, so none outlives the command. A later TypeScript import starts it again.
 */
export function stopCompiler(): Promise<void> {
  return ask({ type: "stop" });
}
