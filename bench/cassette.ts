/**
 * What a cassette costs a caller: ms per call for N sequential chat completions through the
 * `openai` SDK, answered (a) from a cassette through the injected fetch, (b) from a cassette
 * through withCassette (the interception layer), (c) by an msw `setupServer` handler with the
 * same body, (d) by a fetch that returns a prebuilt Response (the floor). The ratios are
 * measured in the same process run: (a) and (d) alternate call by call, (b) and (c) round by
 * round, so that a busy machine slows each pair alike; each figure is the median call.
 * Run: npm run bench -- cassette   (N defaults to 500, BENCH_CALLS overrides; BENCH_ROUNDS, 5)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import OpenAI from "openai";
import { Cassette, cassetteFetch, withCassette } from "../src/cassette/index.js";

const URL = "https://api.openai.com/v1/chat/completions";
const HEADERS = { "content-type": "application/json" };

/** A realistic answer: a tool call with usage, about 1 KB. */
const BODY = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1767225600,
  model: "gpt-4o-mini-2024-07-18",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_bench", type: "function", function: { name: "calculator", arguments: '{"expression":"(17 * 23) + 4"}' } }], annotations: [] },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ],
  usage: {
    prompt_tokens: 412,
    completion_tokens: 21,
    total_tokens: 433,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  service_tier: "default",
  system_fingerprint: "fp_bench",
});

const REQUEST = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system" as const, content: "You are a careful assistant. Use the calculator for arithmetic. ".repeat(6) },
    { role: "user" as const, content: "What is 17 times 23, plus 4? Please show the steps you took." },
  ],
  tools: [
    {
      type: "function" as const,
      function: { name: "calculator", description: "Evaluates an arithmetic expression.", parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] } },
    },
  ],
};

const floorFetch: typeof fetch = async () => new Response(BODY, { status: 200, headers: HEADERS });

const client = (fetch?: typeof globalThis.fetch) => new OpenAI({ apiKey: "sk-bench", maxRetries: 0, ...(fetch ? { fetch } : {}) });

/** One call's duration in ms. */
async function once(sdk: OpenAI): Promise<number> {
  const start = process.hrtime.bigint();
  const answer = await sdk.chat.completions.create(REQUEST);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (answer.choices[0]?.finish_reason !== "tool_calls") throw new Error("unexpected answer");
  return ms;
}

async function calls(sdk: OpenAI, count: number, into: number[] = []): Promise<number[]> {
  for (let i = 0; i < count; i++) into.push(await once(sdk));
  return into;
}

/**
 * The median call: on a machine other work keeps busy, a mean is mostly the pauses that work
 * causes; the median is what a call costs.
 */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function benchCassette(): Promise<void> {
  const count = Number(process.env["BENCH_CALLS"] ?? 500);
  const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-cassette-"));
  const file = join(dir, "bench.cassette.json");
  try {
    // The cassette: `count` identical calls, recorded once (ordinals 0 … count-1).
    const recorder = Cassette.open(file, { mode: "record", clock: () => 0 });
    await calls(client(cassetteFetch(recorder, floorFetch)), count);
    recorder.close();

    const times: Record<"a" | "b" | "c" | "d", number[]> = { a: [], b: [], c: [], d: [] };
    for (let round = 0; round <= rounds; round++) {
      // Round 0 warms up and is not counted.
      const keep = round > 0;
      // (a) and (d) alternate call by call, so that load from elsewhere falls on both alike.
      const cassette = Cassette.open(file, { mode: "replay" });
      const viaCassette = client(cassetteFetch(cassette));
      const floor = client(floorFetch);
      for (let i = 0; i < count; i++) {
        const a = await once(viaCassette);
        const d = await once(floor);
        if (keep) {
          times.a.push(a);
          times.d.push(d);
        }
      }
      cassette.close();
      // (b) and (c) each own the process's HTTP while they run: alternated round by round.
      const b = await withCassette(file, { mode: "replay" }, () => calls(client(), count));
      const server = setupServer(http.post(URL, () => new HttpResponse(BODY, { status: 200, headers: HEADERS })));
      server.listen({ onUnhandledRequest: "error" });
      let c: number[];
      try {
        c = await calls(client(), count);
      } finally {
        server.close();
      }
      if (keep) {
        times.b.push(...b);
        times.c.push(...c);
      }
    }
    const [a, b, c, d] = (["a", "b", "c", "d"] as const).map((name) => median(times[name]));
    const line = (label: string, ms: number) => console.log(`  ${label.padEnd(52)} ${ms.toFixed(3)} ms/call`);
    console.log(`cassette: ${count} sequential chat completions through the openai SDK, ${rounds} rounds (median call)`);
    line("(a) cassette through the injected fetch", a!);
    line("(b) cassette through withCassette (interceptors)", b!);
    line("(c) msw setupServer handler, same body", c!);
    line("(d) fetch returning a prebuilt Response (floor)", d!);
    console.log(`  a / d = ${(a! / d!).toFixed(2)}×  (target ≤ 1.3×)`);
    console.log(`  b / c = ${(b! / c!).toFixed(2)}×  (target ≤ 0.8×)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
