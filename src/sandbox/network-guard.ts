/**
 * Under --mock nothing may reach the network. While a guard is installed:
 *
 * - `fetch` and every socket connect (`net.Socket.prototype.connect`, which `http`, `https`,
 *   `tls`, `http2` and most clients go through) are refused, in a case or outside one;
 * - inside a case, so are the other ways out: child processes (`child_process` spawn, exec,
 *   execFile, fork and their Sync forms), worker threads (`new Worker`), UDP datagrams
 *   (`dgram` Socket send and connect) and DNS queries (`dns.lookup`, `dns.resolve*`, a
 *   `Resolver`, and `dns.promises`). Outside a case they stay available: esbuild, which
 *   compiles TypeScript eval files, is a child process of its own.
 *
 * A refusal is recorded on the case that made it (found through the scope, see scope.ts), which
 * then fails and says where it tried to go. One made by a case after it ended (a leftover
 * timer), or outside every case, is recorded on the suite (`stray`), which fails as a whole.
 * The refusal is thrown synchronously where the call is synchronous, so even code without an
 * 'error' listener fails where it called, instead of crashing the process.
 *
 * The patches are process-wide and reference-counted: overlapping suites (two programmatic
 * `runEvalSuite` calls) share them, and they are removed when the last guard is uninstalled.
 * Code of a --live suite running at the same time is let through.
 */
import childProcess from "node:child_process";
import dgram from "node:dgram";
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import workerThreads from "node:worker_threads";
import { NetworkBlockedError } from "../errors/index.js";
import { currentScope, suiteOf, suiteScope, type SuiteScope } from "./scope.js";

interface Shared {
  installs: number;
  /** Installed guards' suites: they hear of attempts made with no scope at all. */
  suites: Map<SuiteScope, number>;
  restore: (() => void) | undefined;
}

const KEY = Symbol.for("retrace.eval.network-guard.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { installs: 0, suites: new Map(), restore: undefined };
  return holder[KEY];
}

export class NetworkGuard {
  /** The suite this guard refuses the network for; its `stray` lists attempts outside its cases. */
  readonly scope: SuiteScope;
  #installed = false;

  constructor(scope: SuiteScope = suiteScope(true)) {
    this.scope = scope;
  }

  /** Attempts made outside any case (e.g. by an eval file's top level), or by a case after it ended. */
  get stray(): string[] {
    return this.scope.stray;
  }

  install(): void {
    if (this.#installed) return;
    this.#installed = true;
    const state = shared();
    state.suites.set(this.scope, (state.suites.get(this.scope) ?? 0) + 1);
    if (state.installs++ === 0) state.restore = patch(state);
  }

  uninstall(): void {
    if (!this.#installed) return;
    this.#installed = false;
    const state = shared();
    const count = (state.suites.get(this.scope) ?? 1) - 1;
    if (count > 0) state.suites.set(this.scope, count);
    else state.suites.delete(this.scope);
    if (--state.installs === 0) {
      state.restore?.();
      state.restore = undefined;
    }
  }
}

/** Whether the code running now is under a guard: a --mock suite's code, or code no suite owns. */
function guarded(): boolean {
  const scope = currentScope();
  return scope === undefined || suiteOf(scope).guarded;
}

/** Whether the code running now is a --mock case's (still running, or a leftover of one). */
function inGuardedCase(): boolean {
  const scope = currentScope();
  return scope?.kind === "case" && scope.suite.guarded;
}

function refuse(state: Shared, target: string): NetworkBlockedError {
  const scope = currentScope();
  if (scope?.kind === "case") {
    if (!scope.ended) scope.attempts.push(target);
    else scope.suite.stray.push(`${target} (from case "${scope.id}" after it ended)`);
  } else if (scope) {
    scope.stray.push(target);
  } else {
    for (const suite of state.suites.keys()) suite.stray.push(target);
  }
  return new NetworkBlockedError(target);
}

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `holder[name]` with a version that refuses when `when()` holds; returns the undo. */
function wrap(holder: object, name: string, when: () => boolean, describe: (args: unknown[]) => string, state: Shared, async = false): () => void {
  const target = holder as Record<string, unknown>;
  const original = target[name];
  if (typeof original !== "function") return () => {};
  const refusing = {
    [name](this: unknown, ...args: unknown[]): unknown {
      if (!when()) return (original as Fn).apply(this, args);
      const error = refuse(state, describe(args));
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

function patch(state: Shared): () => void {
  const undo: (() => void)[] = [];
  const originalFetch = globalThis.fetch;
  globalThis.fetch = function blockedFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
    if (!guarded()) return originalFetch(input, init);
    return Promise.reject(refuse(state, describeRequest(input, init)));
  } as typeof fetch;
  undo.push(() => {
    globalThis.fetch = originalFetch;
  });
  undo.push(wrap(net.Socket.prototype, "connect", guarded, describeConnect, state));

  for (const name of CHILD_PROCESS) undo.push(wrap(childProcess, name, inGuardedCase, (args) => `a child process (${name} ${describeCommand(args)})`, state));

  const OriginalWorker = workerThreads.Worker;
  const BlockedWorker: typeof OriginalWorker = new Proxy(OriginalWorker, {
    construct(target, args, newTarget): object {
      if (inGuardedCase()) throw refuse(state, `a worker thread (new Worker(${describeWorker(args[0])}))`);
      return Reflect.construct(target, args, newTarget === BlockedWorker ? target : newTarget) as object;
    },
  });
  (workerThreads as { Worker: unknown }).Worker = BlockedWorker;
  undo.push(() => {
    (workerThreads as { Worker: unknown }).Worker = OriginalWorker;
  });

  undo.push(wrap(dgram.Socket.prototype, "send", inGuardedCase, (args) => `UDP ${describeDatagram(args)}`, state));
  undo.push(wrap(dgram.Socket.prototype, "connect", inGuardedCase, (args) => `UDP ${describeUdpConnect(args)}`, state));

  for (const name of DNS_QUERIES) {
    const describe = (args: unknown[]) => `DNS ${name} ${describeHost(args[0])}`;
    undo.push(wrap(dns, name, inGuardedCase, describe, state));
    undo.push(wrap(dns.Resolver.prototype, name, inGuardedCase, describe, state));
    undo.push(wrap(dns.promises, name, inGuardedCase, describe, state, true));
    undo.push(wrap(dns.promises.Resolver.prototype, name, inGuardedCase, describe, state, true));
  }
  // `import { execFileSync } from "node:child_process"` reads the ESM facade: bring it up to date.
  syncBuiltinESMExports();
  return () => {
    for (const step of undo.reverse()) step();
    syncBuiltinESMExports();
  };
}

function describeRequest(input: Parameters<typeof fetch>[0], init?: RequestInit): string {
  const method = init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET");
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  return `${method.toUpperCase()} ${url}`;
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
