/**
 * The process's one HTTP interception layer, on @mswjs/interceptors: `http`/`https` requests
 * (ClientRequest), `fetch`, and XMLHttpRequest where the runtime has one, seen as one Fetch
 * `Request` each. Whatever needs to see or answer HTTP — the --mock network guard today,
 * cassettes next — registers here, so two features never patch the same globals in an order
 * that decides which one wins.
 *
 * A request is offered to the handlers in the order they were added; the first to respond or
 * error it settles it. A request no handler settled goes to the "unhandled" policies: the first
 * to return an error refuses it with that error. With neither, it goes to the network as usual.
 *
 * The interceptors are applied while anything is registered, and removed with the last. The
 * state lives on globalThis, so two copies of Retrace in one process (the source under a test
 * runner, the build under the CLI) share one layer instead of stacking two.
 */
import { createRequire } from "node:module";
import type * as Interceptors from "@mswjs/interceptors";
import type * as ClientRequest from "@mswjs/interceptors/ClientRequest";
import type * as Fetch from "@mswjs/interceptors/fetch";
import type * as XMLHttpRequest from "@mswjs/interceptors/XMLHttpRequest";

/** What a handler may do with a request: answer it, or fail it with an error. */
export interface HttpControl {
  respondWith(response: Response): void;
  errorWith(error: Error): void;
}

/** Sees an intercepted request; settles it through `control`, or leaves it to the next. */
export type HttpHandler = (request: Request, control: HttpControl) => void | Promise<void>;

/** For a request no handler settled: an error refuses it; undefined lets the next policy (or the network) have it. */
export type UnhandledPolicy = (request: Request) => Error | undefined;

interface Layer {
  handlers: HttpHandler[];
  policies: UnhandledPolicy[];
  interceptor: Interceptors.BatchInterceptor<Interceptors.Interceptor<Interceptors.HttpRequestEventMap>[]> | undefined;
  /** Stand-ins waiting for the first request (see `deferInterceptors`): how to take them out. */
  deferred: (() => void) | undefined;
}

const KEY = Symbol.for("retrace.sandbox.interception.v1");

function layer(): Layer {
  const holder = globalThis as { [KEY]?: Layer };
  holder[KEY] ??= { handlers: [], policies: [], interceptor: undefined, deferred: undefined };
  return holder[KEY];
}

// Loaded on first use, synchronously (a guard is installed in a synchronous call): commands
// that never intercept do not pay for the library's import.
const load = createRequire(import.meta.url);

function applyInterceptors(state: Layer): void {
  const { BatchInterceptor, RequestController } = load("@mswjs/interceptors") as typeof Interceptors;
  const { ClientRequestInterceptor } = load("@mswjs/interceptors/ClientRequest") as typeof ClientRequest;
  const { FetchInterceptor } = load("@mswjs/interceptors/fetch") as typeof Fetch;
  // The XMLHttpRequest interceptor patches only a global that is there when it is applied
  // (Node has none unless something defines one), so without one it is not even loaded.
  const xhr =
    "XMLHttpRequest" in globalThis ? [new (load("@mswjs/interceptors/XMLHttpRequest") as typeof XMLHttpRequest).XMLHttpRequestInterceptor()] : [];
  const interceptor = new BatchInterceptor({
    name: "retrace-interception",
    interceptors: [new ClientRequestInterceptor(), new FetchInterceptor(), ...xhr],
  });
  interceptor.on("request", async ({ request, controller }) => {
    const settled = (): boolean => controller.readyState !== RequestController.PENDING;
    for (const handler of [...state.handlers]) {
      try {
        await handler(request, controller);
      } catch (error) {
        // A handler that breaks fails the request; the library would otherwise answer it with a made-up 500.
        if (!settled()) controller.errorWith(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (settled()) return;
    }
    for (const policy of state.policies) {
      const refusal = policy(request);
      if (refusal) return controller.errorWith(refusal);
    }
  });
  interceptor.apply();
  state.interceptor = interceptor;
}

type Patchable = Record<string, unknown>;

/**
 * The library, and the Fetch globals its module touches (Node builds its fetch implementation
 * the first time one is read), cost a --mock command more than running its cases; most such
 * commands never make a request. So until one is made, the entries the interceptors patch —
 * `http`/`https` `request`, `get` and `ClientRequest`, and `fetch` — are stand-ins that, when
 * called, put the originals back, apply the interceptors over them and make the call again
 * through them. A caller cannot tell the difference, except that nothing is loaded before.
 */
function deferInterceptors(state: Layer): void {
  const http = load("node:http") as Patchable;
  const https = load("node:https") as Patchable;
  const entries: [Patchable, string][] = [
    [http, "request"],
    [http, "get"],
    [http, "ClientRequest"],
    [https, "request"],
    [https, "get"],
  ];
  const originals = entries.map(([module, key]) => module[key]);
  const fetchDescriptor = Object.getOwnPropertyDescriptor(globalThis, "fetch");
  type Call = (...args: unknown[]) => unknown;
  // What the interceptors installed, once applied: the stand-ins forward there, never to what
  // is installed now, which may be a user's wrapper that calls the stand-in it wrapped.
  let patched: unknown[] = [];
  let patchedFetch: typeof globalThis.fetch | undefined;
  const stands: object[] = [];
  let standFetch: unknown;
  /** Puts the originals back where a stand-in still is: a later patch of the user's stays. */
  const restore = (): void => {
    entries.forEach(([module, key], index) => {
      if (module[key] === stands[index]) module[key] = originals[index];
    });
    if (fetchDescriptor && globalThis.fetch === standFetch) Object.defineProperty(globalThis, "fetch", fetchDescriptor);
  };
  const wake = (): void => {
    if (state.deferred !== restore) return;
    state.deferred = undefined;
    // Whatever a user installed over a stand-in (a stub, a wrapper) stays on top of the
    // interceptors, as it would have over interceptors applied at once.
    const installed = entries.map(([module, key]) => module[key]);
    const installedFetch = Object.getOwnPropertyDescriptor(globalThis, "fetch");
    entries.forEach(([module, key], index) => (module[key] = originals[index]));
    if (fetchDescriptor) Object.defineProperty(globalThis, "fetch", fetchDescriptor);
    applyInterceptors(state);
    patched = entries.map(([module, key]) => module[key]);
    patchedFetch = fetchDescriptor ? globalThis.fetch : undefined;
    entries.forEach(([module, key], index) => {
      if (installed[index] !== stands[index]) module[key] = installed[index];
    });
    if (installedFetch && installedFetch.value !== standFetch) Object.defineProperty(globalThis, "fetch", installedFetch);
  };
  entries.forEach(([module, key], index) => {
    const stand: object = new Proxy(originals[index] as Call, {
      apply: (_target, self, args) => (wake(), Reflect.apply(patched[index] as Call, self, args)),
      construct: (_target, args, newTarget): object => {
        wake();
        const now = patched[index] as new (...args: unknown[]) => object;
        return Reflect.construct(now, args, newTarget === stand ? now : newTarget);
      },
    });
    stands[index] = stand;
    module[key] = stand;
  });
  if (fetchDescriptor) {
    standFetch = function fetch(input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> {
      wake();
      return (patchedFetch as typeof globalThis.fetch)(input, init);
    };
    Object.defineProperty(globalThis, "fetch", { configurable: true, enumerable: fetchDescriptor.enumerable ?? true, writable: true, value: standFetch });
  }
  state.deferred = restore;
}

function release(state: Layer): void {
  if (state.handlers.length > 0 || state.policies.length > 0) return;
  state.deferred?.();
  state.deferred = undefined;
  state.interceptor?.dispose();
  state.interceptor = undefined;
}

function register<T>(list: (state: Layer) => T[], entry: T): () => void {
  const state = layer();
  list(state).push(entry);
  // A runtime with an XMLHttpRequest global gets the library at once: that global is not deferred.
  if (!state.interceptor && !state.deferred) ("XMLHttpRequest" in globalThis ? applyInterceptors : deferInterceptors)(state);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    const entries = list(state);
    entries.splice(entries.indexOf(entry), 1);
    release(state);
  };
}

/** Adds a handler (e.g. a cassette that replays recorded responses); returns its removal. */
export function addHttpHandler(handler: HttpHandler): () => void {
  return register((state) => state.handlers, handler);
}

/** Adds a policy for requests no handler settled (e.g. --mock's refusal); returns its removal. */
export function addUnhandledPolicy(policy: UnhandledPolicy): () => void {
  return register((state) => state.policies, policy);
}
