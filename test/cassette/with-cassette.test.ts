/**
 * Done means, part 2: `withCassette` records and replays code that calls the `openai` and
 * `@anthropic-ai/sdk` SDKs itself (no injected fetch), through the interception layer; and
 * plain `node:http` requests too. The simulated endpoints are a loopback server; the replay
 * runs with the network guard on, and the server counts that it heard nothing.
 */
import Anthropic from "@anthropic-ai/sdk";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CassetteMissError, withCassette } from "../../src/index.js";
import { NetworkGuard } from "../../src/sandbox/index.js";
import { anthropicSse, hostileChunks } from "../providers/support.js";

const KEY = "sk-withcassette-FAKE-0a1b2c3d4e5f6789";
const hits: string[] = [];
let server: http.Server;
let base = "";
const dirs: string[] = [];

const completion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1767225600,
  model: "gpt-4o-mini",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "calculator", arguments: '{"expression":"2 + 2"}' } }] },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
};

const anthropicEvents = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "calculator", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"expression":' } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"2 + 2 ✓"}' } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: "message_stop" },
];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      hits.push(`${request.method} ${request.url}`);
      if (request.url === "/v1/chat/completions") {
        response.writeHead(200, { "content-type": "application/json", "x-request-id": "req_1", "set-cookie": "a=1" });
        return response.end(JSON.stringify(completion));
      }
      if (request.url === "/v1/messages" && JSON.parse(body).stream === true) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        const chunks = hostileChunks(anthropicSse(anthropicEvents), 11);
        let at = 0;
        const next = (): void => {
          if (at === chunks.length) return void response.end();
          response.write(chunks[at++], next);
        };
        return next();
      }
      if (request.url === "/echo") {
        response.writeHead(200, { "content-type": "text/plain" });
        return response.end(`echo: ${body}`);
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function cassetteFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "retrace-with-cassette-"));
  dirs.push(dir);
  return join(dir, "script.cassette.json");
}

/** Record once, then replay with the guard on; returns both results and how many requests the server heard during the replay. */
async function recordThenReplay<T>(script: () => Promise<T>): Promise<{ recorded: T; replayed: T; heardDuringReplay: number; file: string }> {
  const file = cassetteFile();
  const recorded = await withCassette(file, { mode: "record", secrets: { KEY } }, script);
  const before = hits.length;
  const guard = new NetworkGuard();
  guard.install();
  try {
    const replayed = await withCassette(file, { mode: "replay" }, script);
    return { recorded, replayed, heardDuringReplay: hits.length - before, file };
  } finally {
    guard.uninstall();
  }
}

describe("withCassette", () => {
  it("records and replays a script that uses the openai SDK directly (a tool call)", async () => {
    const script = async () => {
      const client = new OpenAI({ apiKey: KEY, baseURL: `${base}/v1`, maxRetries: 0 });
      const answer = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "What is 2 + 2?" }], tools: [{ type: "function", function: { name: "calculator", parameters: { type: "object" } } }] });
      return { choices: answer.choices, usage: answer.usage, id: answer.id };
    };
    const { recorded, replayed, heardDuringReplay, file } = await recordThenReplay(script);
    expect(recorded.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: "calculator", arguments: '{"expression":"2 + 2"}' } });
    expect(replayed).toEqual(recorded);
    expect(heardDuringReplay).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/set-cookie|x-request-id|authorization|stainless/i);
  });

  it("records and replays @anthropic-ai/sdk streaming, event for event", async () => {
    const script = async () => {
      const client = new Anthropic({ apiKey: KEY, baseURL: base, maxRetries: 0 });
      const stream = client.messages.stream({ model: "claude-haiku-4-5", max_tokens: 100, messages: [{ role: "user", content: "What is 2 + 2?" }] });
      const events: unknown[] = [];
      for await (const event of stream) events.push(event);
      return { events, final: await stream.finalMessage() };
    };
    const { recorded, replayed, heardDuringReplay } = await recordThenReplay(script);
    expect(recorded.final.content[0]).toMatchObject({ type: "tool_use", input: { expression: "2 + 2 ✓" } });
    expect(replayed).toEqual(recorded);
    expect(heardDuringReplay).toBe(0);
  });

  it("records and replays node:http requests (the ClientRequest interceptor)", async () => {
    const script = () =>
      new Promise<string>((resolve, reject) => {
        const request = http.request(`${base}/echo`, { method: "POST", headers: { "content-type": "text/plain" } }, (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () => resolve(`${response.statusCode} ${body}`));
        });
        request.on("error", reject);
        request.end("ping");
      });
    const { recorded, replayed, heardDuringReplay } = await recordThenReplay(script);
    expect(recorded).toBe("200 echo: ping");
    expect(replayed).toBe(recorded);
    expect(heardDuringReplay).toBe(0);
  });

  it("in replay, a request it does not hold rejects withCassette with the miss, whatever the SDK made of it", async () => {
    const file = cassetteFile();
    const ask = (content: string) => async () => {
      const client = new OpenAI({ apiKey: KEY, baseURL: `${base}/v1`, maxRetries: 0 });
      return client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content }] });
    };
    await withCassette(file, { mode: "record" }, ask("What is 2 + 2?"));
    const error = await withCassette(file, { mode: "replay" }, ask("What is 3 + 3?")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteMissError);
    expect((error as CassetteMissError).differences.join("\n")).toContain("What is [-2 + 2?-]{+3 + 3?+}");
  });
});
