/**
 * Replay pacing (instant by default; `recorded`, or a factor of it) on fake timers, and a
 * recording process killed mid-stream: the file keeps every complete entry and loads.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Cassette, cassetteFetch, readCassette } from "../../src/cassette/index.js";

const dir = mkdtempSync(join(tmpdir(), "retrace-cassette-timing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());
const encoder = new TextEncoder();

async function recordedStream(file: string): Promise<void> {
  const offsets = [0, 0, 40, 100];
  let reads = 0;
  const cassette = Cassette.open(file, { mode: "record", clock: () => offsets[Math.min(reads++, offsets.length - 1)]! });
  const parts = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"].map((part) => encoder.encode(part));
  const upstream: typeof fetch = async () => {
    let at = 0;
    return new Response(new ReadableStream({ pull: (c) => (at < parts.length ? c.enqueue(parts[at++]!) : c.close()) }), { headers: { "content-type": "text/event-stream" } });
  };
  await (await cassetteFetch(cassette, upstream)("https://api.example.com/s", { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).text();
  cassette.close();
}

/** How many chunks have arrived after each fake-clock step. */
async function arrivals(file: string, timing: "instant" | "recorded" | number, steps: number[]): Promise<number[]> {
  vi.useFakeTimers();
  const cassette = Cassette.open(file, { mode: "replay", timing });
  const response = await cassetteFetch(cassette, () => Promise.reject(new Error("network")))("https://api.example.com/s", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  const reader = response.body!.getReader();
  let arrived = 0;
  void (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return;
      arrived++;
    }
  })();
  const seen: number[] = [];
  for (const ms of steps) {
    await vi.advanceTimersByTimeAsync(ms);
    seen.push(arrived);
  }
  return seen;
}

describe("replay timing", () => {
  it("is instant by default, as recorded with --timing recorded, and scaled by a factor", async () => {
    const file = join(dir, "timed.json");
    await recordedStream(file);
    expect(readCassette(file)!.entries[0]!.response.body).toEqual({
      chunks: [
        { at: 0, text: "data: 1\n\n" },
        { at: 40, text: "data: 2\n\n" },
        { at: 100, text: "data: 3\n\n" },
      ],
    });
    expect(await arrivals(file, "instant", [0])).toEqual([3]);
    // Steps of the fake clock: 0, then +39 (39), +1 (40), +59 (99), +1 (100).
    expect(await arrivals(file, "recorded", [0, 39, 1, 59, 1])).toEqual([1, 1, 2, 2, 3]);
    expect(await arrivals(file, 0.5, [0, 19, 1, 29, 1])).toEqual([1, 1, 2, 2, 3]);
  });
});

describe("a recording that crashes", () => {
  it("keeps every complete entry when the process is killed mid-stream, and the file loads", async () => {
    const file = join(dir, "crashed.json");
    const script = join(dir, "record.mts");
    const source = resolve(import.meta.dirname, "../../src/cassette/index.js");
    writeFileSync(
      script,
      `import { Cassette, cassetteFetch } from ${JSON.stringify(source)};
const cassette = Cassette.open(${JSON.stringify(file)}, { mode: "record", clock: () => 0 });
let n = 0;
const upstream = async () => {
  n++;
  if (n <= 3) return Response.json({ n });
  // The fourth answer starts streaming and never ends.
  return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("data: partial")) }), { headers: { "content-type": "text/event-stream" } });
};
const f = cassetteFetch(cassette, upstream);
for (let i = 1; i <= 3; i++) await (await f("https://api.example.com/q", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i }) })).json();
const response = await f("https://api.example.com/q", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i: 4 }) });
const reader = response.body.getReader();
await reader.read();
process.stdout.write("mid-stream\\n");
await new Promise(() => {});
`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: resolve(import.meta.dirname, "../.."), stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((done, fail) => {
      child.stdout.on("data", (data: Buffer) => {
        if (data.toString().includes("mid-stream")) done();
      });
      child.on("exit", (code) => fail(new Error(`the recorder exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((done) => child.on("exit", done));
    const entries = readCassette(file)!.entries;
    expect(entries.map((entry) => entry.request.body)).toEqual([{ json: { i: 1 } }, { json: { i: 2 } }, { json: { i: 3 } }]);
    expect(entries.map((entry) => entry.response.body)).toEqual([{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }]);
  }, 60_000);
});
