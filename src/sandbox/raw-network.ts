/**
 * The ways out that are not HTTP, which the interception layer does not see: raw sockets
 * (`net.Socket.prototype.connect`, under every client, so also a last line behind the HTTP
 * layer), child processes, worker threads, UDP datagrams and DNS queries. A refusal is thrown
 * synchronously where the call is synchronous, so even code without an 'error' listener fails
 * where it called, instead of crashing the process.
 */
import childProcess from "node:child_process";
import dgram from "node:dgram";
import dns from "node:dns";
import net from "node:net";
import workerThreads from "node:worker_threads";
import type { NetworkBlockedError } from "../errors/index.js";

/** Records an attempt at `target` and returns the error that refuses it. */
export type Refuse = (target: string) => NetworkBlockedError;

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `holder[name]` with a version that refuses when `when()` holds; returns the undo. */
function wrap(holder: object, name: string, when: () => boolean, describe: (args: unknown[]) => string, refuse: Refuse, async = false): () => void {
  const target = holder as Record<string, unknown>;
  const original = target[name];
  if (typeof original !== "function") return () => {};
  const refusing = {
    [name](this: unknown, ...args: unknown[]): unknown {
      if (!when()) return (original as Fn).apply(this, args);
      const error = refuse(describe(args));
      if (async) return Promise.reject(error);
      throw error;
    },
  }[name] as Fn;
  target[name] = refusing;
  return () => {
    if (target[name] === refusing) target[name] = original;
  };
}

const CHILD_PROCESS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
const DNS_QUERIES = [
  "lookup",
  "lookupService",
  "resolve",
  "resolve4",
  "resolve6",
  "resolveAny",
  "resolveCaa",
  "resolveCname",
  "resolveMx",
  "resolveNaptr",
  "resolveNs",
  "resolvePtr",
  "resolveSoa",
  "resolveSrv",
  "resolveTxt",
  "reverse",
] as const;

/**
 * Bindings of `process.binding` that open sockets or processes below every module a guard can
 * patch (`tcp_wrap` gives a raw TCP handle): they cannot be intercepted, so they are refused.
 */
const RAW_BINDINGS = new Set(["tcp_wrap", "udp_wrap", "pipe_wrap", "tls_wrap", "stream_wrap", "js_stream", "cares_wrap", "process_wrap", "spawn_sync"]);

/**
 * Retrace's own esbuild service (it compiles TypeScript eval files): the `esbuild` binary
 * started with `--service=<version>`. It is the one child process code no suite owns may start
 * under a guard.
 */
function isEsbuildService(file: unknown, args: unknown): boolean {
  return typeof file === "string" && /(?:^|[\\/])esbuild(?:\.exe)?$/.test(file) && Array.isArray(args) && args.some((arg) => typeof arg === "string" && arg.startsWith("--service="));
}

/**
 * Patches every way out that is not HTTP; returns the undo. `refuse` records an attempt and
 * gives the error to throw; `guarded` says whether the running code is refused the network: a
 * --mock case's code, and code no suite owns (an eval file's top level, a timer it set).
 */
export function patchRawNetwork(refuse: Refuse, guarded: () => boolean): () => void {
  const undo: (() => void)[] = [];
  undo.push(wrap(net.Socket.prototype, "connect", guarded, describeConnect, refuse));

  // The exported functions, and the method under all of them (`new ChildProcess().spawn({ file })`).
  for (const name of CHILD_PROCESS) {
    const holder = childProcess as unknown as Record<string, unknown>;
    const original = holder[name];
    if (typeof original !== "function") continue;
    const checked = {
      [name](this: unknown, ...args: unknown[]): unknown {
        if (guarded() && !isEsbuildService(args[0], args[1])) throw refuse(`a child process (${name} ${describeCommand(args)})`);
        return (original as Fn).apply(this, args);
      },
    }[name] as Fn;
    holder[name] = checked;
    undo.push(() => {
      if (holder[name] === checked) holder[name] = original;
    });
  }
  const prototype = childProcess.ChildProcess.prototype as unknown as Record<string, Fn>;
  const originalSpawn = prototype["spawn"];
  if (typeof originalSpawn === "function") {
    const spawn = function spawn(this: unknown, ...args: unknown[]): unknown {
      const options = (args[0] ?? {}) as { file?: unknown; args?: unknown };
      if (guarded() && !isEsbuildService(options.file, options.args)) {
        throw refuse(`a child process (ChildProcess.spawn ${describeCommand([options.file, Array.isArray(options.args) ? options.args.slice(1) : []])})`);
      }
      return originalSpawn.apply(this, args);
    };
    prototype["spawn"] = spawn;
    undo.push(() => {
      if (prototype["spawn"] === spawn) prototype["spawn"] = originalSpawn;
    });
  }

  // `new Worker` through the module, and through the class itself (`Worker.prototype.constructor`).
  const OriginalWorker = workerThreads.Worker;
  const BlockedWorker: typeof OriginalWorker = new Proxy(OriginalWorker, {
    construct(target, args, newTarget): object {
      if (guarded()) throw refuse(`a worker thread (new Worker(${describeWorker(args[0])}))`);
      return Reflect.construct(target, args, newTarget === BlockedWorker ? target : newTarget) as object;
    },
  });
  (workerThreads as { Worker: unknown }).Worker = BlockedWorker;
  const constructorOf = Object.getOwnPropertyDescriptor(OriginalWorker.prototype, "constructor");
  Object.defineProperty(OriginalWorker.prototype, "constructor", { value: BlockedWorker, writable: true, configurable: true, enumerable: false });
  undo.push(() => {
    (workerThreads as { Worker: unknown }).Worker = OriginalWorker;
    if (constructorOf) Object.defineProperty(OriginalWorker.prototype, "constructor", constructorOf);
  });

  const processWithBinding = process as unknown as { binding?: Fn };
  const originalBinding = processWithBinding.binding;
  if (typeof originalBinding === "function") {
    const binding = function binding(this: unknown, ...args: unknown[]): unknown {
      if (RAW_BINDINGS.has(String(args[0])) && guarded()) throw refuse(`process.binding(${JSON.stringify(String(args[0]))})`);
      return originalBinding.apply(this, args);
    };
    processWithBinding.binding = binding;
    undo.push(() => {
      if (processWithBinding.binding === binding) processWithBinding.binding = originalBinding;
    });
  }

  undo.push(wrap(dgram.Socket.prototype, "send", guarded, (args) => `UDP ${describeDatagram(args)}`, refuse));
  undo.push(wrap(dgram.Socket.prototype, "connect", guarded, (args) => `UDP ${describeUdpConnect(args)}`, refuse));

  for (const name of DNS_QUERIES) {
    const describe = (args: unknown[]) => `DNS ${name} ${describeHost(args[0])}`;
    undo.push(wrap(dns, name, guarded, describe, refuse));
    undo.push(wrap(dns.Resolver.prototype, name, guarded, describe, refuse));
    undo.push(wrap(dns.promises, name, guarded, describe, refuse, true));
    undo.push(wrap(dns.promises.Resolver.prototype, name, guarded, describe, refuse, true));
  }
  return () => {
    for (const step of undo.reverse()) step();
  };
}

function describeConnect(args: unknown[]): string {
  // net.connect() hands connect() its normalised arguments as one array: [options, callback].
  const [first, second] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  if (first !== null && typeof first === "object") {
    const options = first as { host?: string; port?: number | string; path?: string };
    if (options.path) return `socket ${options.path}`;
    return `${options.host ?? "localhost"}:${options.port ?? "?"}`;
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return `${typeof second === "string" ? second : "localhost"}:${first}`;
  }
  if (typeof first === "string") return `socket ${first}`;
  return "an unknown address";
}

function describeCommand(args: unknown[]): string {
  const [command, rest] = args;
  const text = [String(command), ...(Array.isArray(rest) ? rest.map(String) : [])].join(" ");
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function describeWorker(source: unknown): string {
  const text = source instanceof URL ? source.href : String(source);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

function describeDatagram(args: unknown[]): string {
  // send(msg, [offset, length,] port, address, callback)
  const numbers = args.slice(1).filter((arg) => typeof arg === "number");
  const port = numbers.length >= 3 ? numbers[2] : numbers[0];
  const address = args.slice(1).find((arg) => typeof arg === "string");
  return port === undefined ? "datagram on a connected socket" : `${address ?? "localhost"}:${port}`;
}

function describeUdpConnect(args: unknown[]): string {
  const [port, address] = args;
  return `${typeof address === "string" ? address : "localhost"}:${String(port)}`;
}

function describeHost(host: unknown): string {
  return typeof host === "string" ? host : String(host);
}
