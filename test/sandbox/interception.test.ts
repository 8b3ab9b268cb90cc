/**
 * One HTTP interception layer for the process: handlers answer what they know (a cassette,
 * next), the --mock guard refuses what nobody answered, and the globals are the originals
 * again once nothing is registered.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkBlockedError } from "../../src/errors/index.js";
import { addHttpHandler, addUnhandledPolicy, NetworkGuard, runInScope, suiteScope } from "../../src/sandbox/index.js";

const hits: string[] = [];
let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.end("from the server");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

describe("the interception layer", () => {
  it("a handler answers the requests it knows; the guard refuses the rest, and nothing reaches the server", async () => {
    hits.length = 0;
    const removeHandler = addHttpHandler((request, control) => {
      if (new URL(request.url).pathname === "/known") control.respondWith(new Response("from the handler"));
    });
    const guard = new NetworkGuard();
    guard.install();
    try {
      expect(await (await fetch(`${base}/known`)).text()).toBe("from the handler");
      expect(await get(`${base}/known`)).toBe("from the handler");
      await expect(fetch(`${base}/unknown`)).rejects.toBeInstanceOf(NetworkBlockedError);
      await expect(get(`${base}/unknown-too`)).rejects.toBeInstanceOf(NetworkBlockedError);
    } finally {
      guard.uninstall();
      removeHandler();
    }
    expect(guard.stray).toEqual([`GET ${base}/unknown`, `GET ${base}/unknown-too`]);
    expect(hits).toEqual([]);
  });

  it("the first handler to settle a request wins; one that leaves it passes it on", async () => {
    const seen: string[] = [];
    const removers = [
      addHttpHandler(() => void seen.push("looks")),
      addHttpHandler((_request, control) => (seen.push("answers"), control.respondWith(new Response("second")))),
      addHttpHandler(() => void seen.push("never asked")),
    ];
    try {
      expect(await (await fetch(`${base}/order`)).text()).toBe("second");
    } finally {
      for (const remove of removers) remove();
    }
    expect(seen).toEqual(["looks", "answers"]);
  });

  it("code of an unguarded (--live) suite goes through while a guard is installed", async () => {
    hits.length = 0;
    const guard = new NetworkGuard();
    guard.install();
    try {
      const live = suiteScope(false);
      expect(await runInScope(live, async () => (await fetch(`${base}/live`)).text())).toBe("from the server");
      expect(await runInScope(live, () => get(`${base}/live-http`))).toBe("from the server");
    } finally {
      guard.uninstall();
    }
    expect(hits).toEqual(["GET /live", "GET /live-http"]);
  });

  it("a handler that throws fails the request with its error, instead of a made-up response", async () => {
    const remove = addHttpHandler(() => {
      throw new Error("the cassette is unreadable");
    });
    try {
      await expect(fetch(`${base}/broken`)).rejects.toThrow("the cassette is unreadable");
      await expect(get(`${base}/broken-http`)).rejects.toThrow("the cassette is unreadable");
    } finally {
      remove();
    }
  });

  it("the globals are the originals again once the last registration is removed", () => {
    const originals = { fetch: globalThis.fetch, request: http.request, get: http.get };
    const removePolicy = addUnhandledPolicy(() => undefined);
    const removeHandler = addHttpHandler(() => undefined);
    expect(globalThis.fetch).not.toBe(originals.fetch);
    expect(http.request).not.toBe(originals.request);
    removePolicy();
    expect(globalThis.fetch).not.toBe(originals.fetch);
    removeHandler();
    removeHandler();
    expect({ fetch: globalThis.fetch, request: http.request, get: http.get }).toEqual(originals);
  });
});

describe("the interception layer before the first request", () => {
  // A real process, so what is loaded is the process's own (the build in dist/, as the CLI runs it).
  const script = `
    const { createRequire } = require("node:module");
    const http = require("node:http");
    const loaded = () => Object.keys(require.cache).some((file) => file.includes("@mswjs"));
    import(${JSON.stringify(new URL("../../dist/src/sandbox/index.js", import.meta.url).href)}).then(async ({ NetworkGuard }) => {
      const guard = new NetworkGuard();
      guard.install();
      const before = loaded();
      const captured = http.get;
      const fetched = await fetch("http://127.0.0.1:9/a").then(() => "answered", (error) => error.code);
      const got = await new Promise((resolve) => captured("http://127.0.0.1:9/b", () => resolve("answered")).on("error", (error) => resolve(error.code)));
      guard.uninstall();
      console.log(JSON.stringify({ before, after: loaded(), fetched, got, stray: guard.stray }));
    });`;

  it("loads nothing until a request is made, then refuses it, through a reference taken meanwhile too", async () => {
    const { execFile } = await import("node:child_process");
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["-e", script], { env: { PATH: process.env.PATH ?? "" } }, (error, out, err) => (error ? reject(new Error(err)) : resolve(out))),
    );
    expect(JSON.parse(stdout)).toEqual({
      before: false,
      after: true,
      fetched: "network_blocked",
      got: "network_blocked",
      stray: ["GET http://127.0.0.1:9/a", "GET http://127.0.0.1:9/b"],
    });
  });
});

describe("what a user installs over the guard's stand-ins", () => {
  it("a fetch stub installed after the guard stays installed when the first request wakes the interceptors", async () => {
    const original = globalThis.fetch;
    const guard = new NetworkGuard();
    guard.install();
    try {
      globalThis.fetch = async () => new Response("stubbed");
      await expect(get(`${base}/wakes-them`)).rejects.toBeInstanceOf(NetworkBlockedError);
      expect(await (await fetch(`${base}/stubbed`)).text()).toBe("stubbed");
    } finally {
      guard.uninstall();
      globalThis.fetch = original;
    }
  });

  it("a wrapper around http.get that calls the stand-in it wrapped is refused once (no loop) and stays installed", async () => {
    const before = http.get;
    const guard = new NetworkGuard();
    guard.install();
    let calls = 0;
    const wrapped = http.get;
    const wrapper = ((...args: Parameters<typeof http.get>) => {
      calls++;
      return wrapped(...args);
    }) as typeof http.get;
    http.get = wrapper;
    try {
      await expect(get(`${base}/wrapped`)).rejects.toBeInstanceOf(NetworkBlockedError);
      expect(calls).toBe(1);
      expect(http.get).toBe(wrapper);
    } finally {
      guard.uninstall();
      http.get = before;
    }
  });
});
