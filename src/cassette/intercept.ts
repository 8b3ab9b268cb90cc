/**
 * `withCassette`: a cassette for any code, through the process's one interception layer
 * (src/sandbox/interception.ts, on @mswjs/interceptors: global `fetch`, `node:http`/`https`,
 * XMLHttpRequest). The cassette is the layer's handler, so under --mock what it does not answer
 * still meets the network guard's "unhandled" policy: the two cannot collide.
 *
 * A request that must go to the network (record, auto) is sent again with the global fetch from
 * inside a "forwarding" context the handler steps aside for; it then takes the layer's normal
 * way out (and is refused there under --mock).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { addHttpHandler, type HttpHandler } from "../sandbox/index.js";
import { Cassette, type CassetteOptions, type CassetteSummary, type IncomingRequest } from "./cassette.js";

interface Shared {
  forwarding: AsyncLocalStorage<true>;
  /** The cassette whose body the running code belongs to. */
  owner: AsyncLocalStorage<Cassette>;
  /** Cassettes in use, the latest last: a request from no cassette's body (a timer, a vitest hook) goes to the latest. */
  open: Cassette[];
}

const KEY = Symbol.for("retrace.cassette.intercept.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { forwarding: new AsyncLocalStorage(), owner: new AsyncLocalStorage(), open: [] };
  return holder[KEY];
}

export type WithCassetteOptions = Partial<CassetteOptions> & {
  /** Told what the cassette did when the body ends: served, recorded, unused entries. */
  onSummary?: (summary: CassetteSummary) => void;
};

/** Serves the cassette's answers to HTTP made by anyone until the returned function is called. */
export function interceptWith(cassette: Cassette): () => void {
  const state = shared();
  state.open.push(cassette);
  const handler: HttpHandler = async (request, control) => {
    if (state.forwarding.getStore()) return;
    const owner = state.owner.getStore() ?? state.open.at(-1);
    if (owner !== cassette) return;
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const incoming: IncomingRequest = { method: request.method, url: request.url, headers: request.headers, body };
    const forward = (): Promise<Response> =>
      state.forwarding.run(true, () =>
        globalThis.fetch(request.url, { method: request.method, headers: request.headers, ...(body ? { body } : {}), redirect: "manual" }),
      );
    try {
      control.respondWith(await cassette.respond(incoming, forward));
    } catch (error) {
      control.errorWith(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const remove = addHttpHandler(handler);
  return () => {
    remove();
    const at = state.open.indexOf(cassette);
    if (at >= 0) state.open.splice(at, 1);
  };
}

/**
 * Runs `body` with every HTTP request it makes (through `fetch`, `http`/`https`, or an SDK on
 * either) served from, or recorded to, the cassette at `file`. Default mode: `auto`. A miss in
 * `replay` fails the request it belongs to, and `withCassette` then rejects with that
 * CassetteMissError, whatever the body made of the failed request.
 */
export async function withCassette<T>(file: string, options: WithCassetteOptions, body: () => T | Promise<T>): Promise<T> {
  const { onSummary, ...rest } = options;
  const cassette = Cassette.open(file, { mode: "auto", ...rest });
  const stop = cassette.mode === "live" ? () => {} : interceptWith(cassette);
  let result: T;
  try {
    result = await shared().owner.run(cassette, body);
  } catch (error) {
    stop();
    const summary = cassette.close();
    onSummary?.(summary);
    throw cassette.misses[0] ?? error;
  }
  stop();
  const summary = cassette.close();
  onSummary?.(summary);
  if (cassette.misses[0]) throw cassette.misses[0];
  return result;
}
