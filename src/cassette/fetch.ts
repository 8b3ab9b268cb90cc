/**
 * A cassette as a `fetch`: what Retrace's providers take (ModelSettings.fetch), and what any
 * SDK that accepts a `fetch` option can be given. Forwarding goes to `base` (default: the global
 * fetch as it is when the request is made).
 */
import type { Cassette, IncomingRequest } from "./cassette.js";

const encoder = new TextEncoder();

export function cassetteFetch(cassette: Cassette, base?: typeof fetch): typeof fetch {
  const send: typeof fetch = base ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    // The SDKs pass a URL and a string body: read them directly instead of building a Request.
    if ((typeof input === "string" || input instanceof URL) && (init?.body === undefined || init.body === null || typeof init.body === "string")) {
      const body = typeof init?.body === "string" ? encoder.encode(init.body) : undefined;
      const incoming: IncomingRequest = { method: init?.method ?? "GET", url: String(input), headers: new Headers(init?.headers), body };
      return cassette.respond(incoming, () => send(input, init));
    }
    const request = new Request(input, init);
    const bytes = request.body ? new Uint8Array(await request.clone().arrayBuffer()) : undefined;
    return cassette.respond({ method: request.method, url: request.url, headers: request.headers, body: bytes }, () => send(request));
  };
}
