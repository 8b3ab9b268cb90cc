/**
 * No key, bearer token or cookie enters a cassette; configured patterns are redacted; and a
 * recording that would still hold the key's value (split across stream chunks, where no
 * per-chunk redaction can see it) is refused and not written. A canary key proves it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Cassette, CassetteError, cassetteFetch } from "../../src/cassette/index.js";

const CANARY = "sk-canary-7f3a9c1e5b2d4068aa11";
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-cassette-secret-"));
  dirs.push(dir);
  return join(dir, "c.json");
};

const request = (f: typeof fetch) =>
  f("https://api.example.com/v1/chat?token=abc", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${CANARY}`, cookie: "session=s3cr3t", "x-api-key": CANARY },
    body: JSON.stringify({ messages: [{ role: "user", content: `my key is ${CANARY}; call me on 555-0100` }] }),
  });

describe("secrets in a cassette", () => {
  it("keeps no credential header, cookie or query token; redacts the key's value and configured patterns", async () => {
    const file = tempFile();
    const cassette = Cassette.open(file, { mode: "record", secrets: { OPENAI_API_KEY: CANARY }, redact: [/555-\d{4}/] });
    const upstream: typeof fetch = async () =>
      new Response(JSON.stringify({ echo: `you said ${CANARY}`, phone: "555-0100" }), { headers: { "content-type": "application/json", "set-cookie": "id=1", "x-request-id": "req_9" } });
    await request(cassetteFetch(cassette, upstream));
    cassette.close();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(CANARY);
    expect(text).not.toMatch(/s3cr3t|token=abc|set-cookie|authorization|x-api-key|cookie|555-0100|req_9/i);
    expect(text).toContain("[redacted]");
  });

  it("refuses to write a recording whose stream still spells the canary key across two chunks", async () => {
    const file = tempFile();
    const cassette = Cassette.open(file, { mode: "record", secrets: { OPENAI_API_KEY: CANARY } });
    const half = CANARY.length / 2;
    const parts = [`data: {"text":"${CANARY.slice(0, half)}`, `${CANARY.slice(half)}"}\n\n`].map((part) => new TextEncoder().encode(part));
    const upstream: typeof fetch = async () =>
      new Response(new ReadableStream({ start: (c) => (parts.forEach((part) => c.enqueue(part)), c.close()) }), { headers: { "content-type": "text/event-stream" } });
    const response = await request(cassetteFetch(cassette, upstream));
    const error = await response.text().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as CassetteError).code).toBe("cassette_secret");
    expect((error as CassetteError).describe()).toMatch(/c\.json entry entries\[0\]: the recording holds the value of OPENAI_API_KEY/);
    expect((error as CassetteError).message).not.toContain(CANARY);
    cassette.close();
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").not.toContain(CANARY);
  });
});
