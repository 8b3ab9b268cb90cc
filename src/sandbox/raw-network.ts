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
 * Patches every way out that is not HTTP; returns the undo. `refuse` records an attempt and
 * gives the error to throw; `guarded` says whether the running code is refused the network,
 * `inGuardedCase` whether it is a --mock case's (child processes and the like stay available to
 * the suite itself).
 */
export function patchRawNetwork(refuse: Refuse, guarded: () => boolean, inGuardedCase: () => boolean): () => void {
  const undo: (() => void)[] = [];
  undo.push(wrap(net.Socket.prototype, "connect", guarded, describeConnect, refuse));

  for (const name of CHILD_PROCESS) undo.push(wrap(childProcess, name, inGuardedCase, (args) => `a child process (${name} ${describeCommand(args)})`, refuse));

  const OriginalWorker = workerThreads.Worker;
  const BlockedWorker: typeof OriginalWorker = new Proxy(OriginalWorker, {
    construct(target, args, newTarget): object {
      if (inGuardedCase()) throw refuse(`a worker thread (new Worker(${describeWorker(args[0])}))`);
      return Reflect.construct(target, args, newTarget === BlockedWorker ? target : newTarget) as object;
    },
  });
  (workerThreads as { Worker: unknown }).Worker = BlockedWorker;
  undo.push(() => {
    (workerThreads as { Worker: unknown }).Worker = OriginalWorker;
  });

  undo.push(wrap(dgram.Socket.prototype, "send", inGuardedCase, (args) => `UDP ${describeDatagram(args)}`, refuse));
  undo.push(wrap(dgram.Socket.prototype, "connect", inGuardedCase, (args) => `UDP ${describeUdpConnect(args)}`, refuse));

  for (const name of DNS_QUERIES) {
    const describe = (args: unknown[]) => `DNS ${name} ${describeHost(args[0])}`;
    undo.push(wrap(dns, name, inGuardedCase, describe, refuse));
    undo.push(wrap(dns.Resolver.prototype, name, inGuardedCase, describe, refuse));
    undo.push(wrap(dns.promises, name, inGuardedCase, describe, refuse, true));
    undo.push(wrap(dns.promises.Resolver.prototype, name, inGuardedCase, describe, refuse, true));
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
