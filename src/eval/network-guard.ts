/**
 * Under --mock nothing may reach the network. While cases run, `fetch` and every socket connect
 * are replaced by a refusal that records the attempt on the case that made it (found through
 * AsyncLocalStorage, so concurrent cases are told apart); the case then fails and says where
 * it tried to go. The refusal is thrown synchronously by connect, so even code without an
 * 'error' listener fails where it called, instead of crashing the process.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import net from "node:net";
import { NetworkBlockedError } from "../errors/index.js";

export interface NetworkSink {
  attempts: string[];
}

type Connect = typeof net.Socket.prototype.connect;

export class NetworkGuard {
  readonly #storage = new AsyncLocalStorage<NetworkSink>();
  /** Attempts made outside any case (e.g. by an eval file's top level). */
  readonly stray: string[] = [];
  #restore: (() => void) | undefined;

  install(): void {
    if (this.#restore) return;
    const originalFetch = globalThis.fetch;
    const originalConnect = net.Socket.prototype.connect;
    const record = (target: string): NetworkBlockedError => {
      (this.#storage.getStore()?.attempts ?? this.stray).push(target);
      return new NetworkBlockedError(target);
    };
    globalThis.fetch = function blockedFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
      return Promise.reject(record(describeRequest(input, init)));
    } as typeof fetch;
    net.Socket.prototype.connect = function blockedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
      throw record(describeConnect(args));
    } as unknown as Connect;
    this.#restore = () => {
      globalThis.fetch = originalFetch;
      net.Socket.prototype.connect = originalConnect;
    };
  }

  uninstall(): void {
    this.#restore?.();
    this.#restore = undefined;
  }

  run<T>(sink: NetworkSink, body: () => Promise<T>): Promise<T> {
    return this.#storage.run(sink, body);
  }
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
