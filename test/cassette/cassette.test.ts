/**
 * The cassette core through its fetch: record, replay byte for byte (stream chunk boundaries
 * included, mid-UTF-8), deterministic files, ordinals, modes, explained misses, bad files.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Cassette, CassetteError, CassetteMissError, cassetteFetch, ignoreBodyField, readCassette } from "../../src/cassette/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempFile(name = "c.json"): string {
  const dir = mkdtempSync(join(tmpdir(), "retrace-cassette-"));
  dirs.push(dir);
  return join(dir, name);
}

const encoder = new TextEncoder();
/** A server stand-in: answers JSON, or SSE cut into the given byte chunks. */
function upstream(answer: (body: Record<string, unknown>, n: number) => Response): { fetch: typeof fetch; calls: number } {
  const state = { calls: 0, fetch: (async (_input: string | URL | Request, init?: RequestInit) => answer(JSON.parse(String(init?.body)) as Record<string, unknown>, ++state.calls)) as typeof fetch };
  return state;
}
function sse(chunks: Uint8Array[]): Response {
  let at = 0;
  return new Response(new ReadableStream({ pull: (c) => (at < chunks.length ? c.enqueue(chunks[at++]!) : c.close()) }), { headers: { "content-type": "text/event-stream", "x-request-id": "req_1", "set-cookie": "a=b" } });
}
async function chunksOf(response: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}
const post = (f: typeof fetch, body: object, headers: Record<string, string> = {}) =>
  f("https://api.example.com/v1/chat?b=2&a=1&api_key=SECRET", { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-abcdefghijklmnopqrstuvwxyz", "x-stainless-os": "Linux", "user-agent": "x", ...headers }, body: JSON.stringify(body) });

describe("a cassette", () => {
  it("replays a stream's chunks exactly as they arrived, cut mid-character, and writes the same bytes twice", async () => {
    const text = 'data: {"x":"héllo ☃"}\n\n';
    const bytes = encoder.encode(text);
    const cut = [bytes.slice(0, 12), bytes.slice(12, 13), bytes.slice(13, 20), bytes.slice(20)];
    const files = [tempFile(), tempFile()];
    for (const file of files) {
      let t = 0;
      const cassette = Cassette.open(file, { mode: "record", clock: () => (t += 5) });
      const got = await chunksOf(await post(cassetteFetch(cassette, upstream(() => sse(cut)).fetch), { model: "m", stream: true }));
      expect(got).toEqual(cut);
      cassette.close();
    }
    expect(readFileSync(files[0]!, "utf8")).toBe(readFileSync(files[1]!, "utf8"));
    const stored = readFileSync(files[0]!, "utf8");
    expect(stored).toContain('"base64"');
    expect(stored).not.toMatch(/SECRET|Bearer|set-cookie|x-request-id|stainless|user-agent/);

    const replay = Cassette.open(files[0]!, { mode: "replay" });
    const none: typeof fetch = () => Promise.reject(new Error("network"));
    const again = await chunksOf(await post(cassetteFetch(replay, none), { stream: true, model: "m" }));
    expect(again).toEqual(cut);
    expect(replay.close().unused).toEqual([]);
  });

  it("gives N identical calls the N recorded answers in order, and reports entries left unused", async () => {
    const file = tempFile();
    const recorder = Cassette.open(file, { mode: "record" });
    const f = cassetteFetch(recorder, upstream((_b, n) => Response.json({ n })).fetch);
    for (let i = 0; i < 3; i++) await post(f, { q: 1 });
    await post(f, { q: 2 });
    recorder.close();
    const replay = Cassette.open(file, { mode: "replay" });
    const g = cassetteFetch(replay, () => Promise.reject(new Error("network")));
    expect(await (await post(g, { q: 1 })).json()).toEqual({ n: 1 });
    expect(await (await post(g, { q: 1 })).json()).toEqual({ n: 2 });
    const summary = replay.close();
    expect(summary.unused.map((u) => u.entry)).toEqual(["entries[2]", "entries[3]"]);
  });

  it("explains a miss with the changed word of the system prompt", async () => {
    const file = tempFile();
    const recorder = Cassette.open(file, { mode: "record" });
    const messages = (word: string) => [{ role: "system", content: `You are a ${word} assistant who answers in one short sentence.` }, { role: "user", content: "hi" }];
    await post(cassetteFetch(recorder, upstream(() => Response.json({ ok: true })).fetch), { model: "m", messages: messages("helpful") });
    recorder.close();
    const replay = Cassette.open(file, { mode: "replay" });
    const error = await post(cassetteFetch(replay), { model: "m", messages: messages("cheerful") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteMissError);
    const miss = error as CassetteMissError;
    expect(miss.nearest).toBe("entries[0]");
    expect(miss.differences).toEqual(['body.messages[0].content: "You are a [-helpful-]{+cheerful+} assistant who answers in…"']);
    expect(miss.message).toContain("[-helpful-]{+cheerful+}");
  });

  it("auto serves what it holds and records what it does not; a normaliser leaves a field out of the key", async () => {
    const file = tempFile();
    const server = upstream((body) => Response.json({ echo: body["q"] }));
    const auto = () => Cassette.open(file, { mode: "auto", normalise: [ignoreBodyField("metadata")] });
    const first = auto();
    await post(cassetteFetch(first, server.fetch), { q: 1, metadata: { run: "a" } });
    first.close();
    const second = auto();
    expect(await (await post(cassetteFetch(second, server.fetch), { q: 1, metadata: { run: "b" } })).json()).toEqual({ echo: 1 });
    await post(cassetteFetch(second, server.fetch), { q: 2 });
    second.close();
    expect(server.calls).toBe(2);
    expect(readCassette(file)!.entries).toHaveLength(2);
  });

  it("update drops entries no longer used", async () => {
    const file = tempFile();
    const server = upstream((body) => Response.json({ echo: body["q"] }));
    const one = Cassette.open(file, { mode: "record" });
    await post(cassetteFetch(one, server.fetch), { q: 1 });
    await post(cassetteFetch(one, server.fetch), { q: 2 });
    one.close();
    const two = Cassette.open(file, { mode: "update" });
    await post(cassetteFetch(two, server.fetch), { q: 2 });
    two.close();
    expect(readCassette(file)!.entries.map((e) => e.request.body)).toEqual([{ json: { q: 2 } }]);
  });

  it("refuses a file that is damaged, of another version, truncated or hand-edited, naming the file and entry", async () => {
    const file = tempFile();
    const recorder = Cassette.open(file, { mode: "record" });
    const f = cassetteFetch(recorder, upstream(() => Response.json({ a: 1 })).fetch);
    await post(f, { q: 1 });
    await post(f, { q: 2 });
    recorder.close();
    const good = readFileSync(file, "utf8");
    const refused = (text: string) => {
      writeFileSync(file, text);
      try {
        Cassette.open(file, { mode: "replay" });
      } catch (error) {
        expect(error).toBeInstanceOf(CassetteError);
        return (error as CassetteError).describe();
      }
      throw new Error("accepted");
    };
    expect(refused(good.slice(0, Math.floor(good.length * 0.75)))).toMatch(/c\.json entry entries\[1\]: .*truncated/);
    expect(refused(good.replace('"version": 1', '"version": 7'))).toMatch(/version 7 is not one/);
    expect(refused(good.replace('"status": 200', '"status": "200"'))).toMatch(/entry entries\[0\]: response\.status/);
    expect(refused(good.replace('"q": 2', '"q": 3'))).toMatch(/entry entries\[1\]: the key does not match/);
    rmSync(file);
    expect(refused).toBeDefined();
    expect(() => Cassette.open(file, { mode: "replay" })).toThrow(/no cassette to replay/);
  });
});
