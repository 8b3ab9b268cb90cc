/**
 * Properties of the format and the key, over generated traffic: stream chunks of any bytes
 * round-trip exactly (boundaries included); a file is the same bytes whenever the same traffic
 * is recorded; the key ignores JSON key order and credentials; a request found by its
 * fingerprint gets the same answer as one found by its full key.
 */
import fc from "fast-check";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Cassette, cassetteFetch, keyedRequest, parseCassette, readCassette, serializeCassette } from "../../src/cassette/index.js";

const dir = mkdtempSync(join(tmpdir(), "retrace-cassette-prop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `c${n++}.json`);
const URL = "https://api.example.com/v1/stream";
const offline: typeof fetch = () => Promise.reject(new Error("the network was reached"));

async function chunksOf(response: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(new Uint8Array(value));
  }
}

function streamed(chunks: readonly Uint8Array[]): typeof fetch {
  return async () => {
    let at = 0;
    return new Response(new ReadableStream({ pull: (c) => (at < chunks.length ? c.enqueue(chunks[at++]!.slice()) : c.close()) }), { headers: { "content-type": "text/event-stream" } });
  };
}

const json = fc.jsonValue({ maxDepth: 3 }).filter((value) => value !== null && typeof value === "object" && !Array.isArray(value)) as fc.Arbitrary<Record<string, unknown>>;

function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
  return value;
}

describe("cassette properties", () => {
  it("any stream chunks (bytes of any kind, cut anywhere) replay exactly, and re-recording writes the same bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { maxLength: 8 }), fc.string(), async (chunks, question) => {
        const files = [fresh(), fresh()];
        for (const file of files) {
          const recorder = Cassette.open(file, { mode: "record", clock: () => 0 });
          const got = await chunksOf(await cassetteFetch(recorder, streamed(chunks))(URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) }));
          expect(got).toEqual(chunks);
          recorder.close();
        }
        expect(readFileSync(files[1]!, "utf8")).toBe(readFileSync(files[0]!, "utf8"));
        const player = Cassette.open(files[0]!, { mode: "replay" });
        const replayed = await chunksOf(await cassetteFetch(player, offline)(URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question }) }));
        expect(replayed).toEqual(chunks);
      }),
      { numRuns: 40 },
    );
  });

  it("the key ignores JSON key order, credentials and volatile headers, and a file parses back to what was serialised", () => {
    fc.assert(
      fc.property(json, fc.string({ minLength: 8 }), (body, token) => {
        const a = keyedRequest("POST", `${URL}?b=1&a=2`, new Headers({ "content-type": "application/json", authorization: `Bearer ${token}`, "x-stainless-retry-count": "0" }), JSON.stringify(body));
        const b = keyedRequest("post", `${URL}?a=2&b=1&api_key=${encodeURIComponent(token)}`, new Headers({ "content-type": "application/json", "user-agent": "other", "idempotency-key": token }), JSON.stringify(reversedKeys(body)));
        expect(b.key).toBe(a.key);
        const entry = { key: a.key, ordinal: 0, request: a.request, response: { status: 200, headers: { "content-type": "application/json" }, body: { json: body } } };
        const text = serializeCassette([entry]);
        expect(parseCassette(text, "x.json").entries).toEqual(JSON.parse(JSON.stringify([entry])));
      }),
      { numRuns: 200 },
    );
  });

  it("a request found by its fingerprint and one found by its full key (keys reordered) get the same recorded answers", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 4 }), async (bodies) => {
        const file = fresh();
        const recorder = Cassette.open(file, { mode: "record" });
        let i = 0;
        const upstream: typeof fetch = async () => Response.json({ answer: i++ });
        for (const body of bodies) await cassetteFetch(recorder, upstream)(URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        recorder.close();
        const answers = async (reorder: boolean) => {
          const player = Cassette.open(file, { mode: "replay" });
          const out: unknown[] = [];
          for (const body of bodies) out.push(await (await cassetteFetch(player, offline)(URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(reorder ? reversedKeys(body) : body) })).json());
          expect(player.close().unused).toEqual([]);
          return out;
        };
        expect(await answers(true)).toEqual(await answers(false));
        expect(readCassette(file)!.entries).toHaveLength(bodies.length);
      }),
      { numRuns: 40 },
    );
  });
});
