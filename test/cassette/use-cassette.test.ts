/**
 * `useCassette()` from retrace-agents/vitest: each test's HTTP recorded to its own file under
 * `__cassettes__/<test file>/`, which then replays offline.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withCassette } from "../../src/cassette/index.js";
import { NetworkGuard } from "../../src/sandbox/index.js";
import { useCassette } from "../../src/vitest/index.js";

const dir = mkdtempSync(join(tmpdir(), "retrace-use-cassette-"));
let server: http.Server;
let base = "";
let heard = 0;

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    heard++;
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ answer: 42 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a suite with useCassette", () => {
  const cassette = useCassette({ mode: "record", dir });
  it("asks the server", async () => {
    expect(cassette.current?.mode).toBe("record");
    expect(await (await fetch(`${base}/answer`)).json()).toEqual({ answer: 42 });
  });
});

describe("afterwards", () => {
  it("the test's cassette is beside the test file's name, and replays with the network refused", async () => {
    const file = join(dir, "__cassettes__", "use-cassette.test", "a suite with useCassette - asks the server.json");
    expect(existsSync(file)).toBe(true);
    const before = heard;
    const guard = new NetworkGuard();
    guard.install();
    try {
      const body = await withCassette(file, { mode: "replay" }, async () => (await fetch(`${base}/answer`)).json());
      expect(body).toEqual({ answer: 42 });
    } finally {
      guard.uninstall();
    }
    expect(heard).toBe(before);
  });
});
