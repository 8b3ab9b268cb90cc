/**
 * Test support for the HTTP providers: an msw server that fails on any request no handler
 * claims, SSE bodies cut at hostile byte boundaries, and the real wire captures.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { ProviderError, type ProviderErrorKind } from "../../src/errors/index.js";
import type { GenerateOptions, LlmRequest } from "../../src/contracts/index.js";

export const API_KEY = "sk-test-SECRET-0123456789abcdef";

export type MockServer = ReturnType<typeof setupServer> & {
  /**
   * Declares that this test sends requests no handler claims, and returns them as they come
   * (`METHOD url`) for the test to check. They still fail, as every unhandled request does,
   * but quietly: msw's console report is kept for the requests nobody declared.
   */
  expectUnhandled(): readonly string[];
};

/**
 * One msw server per test file. An unhandled request fails (never reaches the network), and
 * fails the test after it too, unless the test declared it with `expectUnhandled()`.
 */
export function useMockServer(): MockServer {
  const server = setupServer();
  const unhandled: string[] = [];
  let expected = false;
  beforeAll(() =>
    server.listen({
      onUnhandledRequest(request, print) {
        unhandled.push(`${request.method} ${request.url}`);
        if (!expected) print.error();
        // A network error, as msw's "error" strategy gives; returning would let the request
        // through to the network.
        throw Response.error();
      },
    }),
  );
  afterEach(() => {
    server.resetHandlers();
    const undeclared = expected ? [] : [...unhandled];
    unhandled.length = 0;
    expected = false;
    expect(undeclared, "requests no handler claimed").toEqual([]);
  });
  afterAll(() => server.close());
  return Object.assign(server, {
    expectUnhandled(): readonly string[] {
      expected = true;
      return unhandled;
    },
  });
}

export function readWireFixture(name: string): string[] {
  return readWireBody(name).split("\n").filter((line) => line.trim() !== "");
}

/** A fixture's text as it is on disk: a body to serve byte for byte, never re-serialised. */
export function readWireBody(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/wire/${name}`, import.meta.url)), "utf8").trimEnd();
}

/** The tool arguments every `*-numbers` fixture carries, spelled so re-serialising changes them. */
export const NUMBER_ARGUMENTS = '{"ratio": 1.0, "big": 12345678901234567890, "exp": 1E+2, "neg": -0.50, "nested": {"list": [1.0, 2.50]}}';

const encoder = new TextEncoder();

/**
 * The bytes of `text` cut into pieces of at most `size` bytes, and additionally in the middle
 * of every multi-byte UTF-8 character, so that both JSON strings and characters straddle
 * chunk boundaries.
 */
export function hostileChunks(text: string, size = 7): Uint8Array[] {
  const bytes = encoder.encode(text);
  const cuts = new Set<number>();
  for (let at = size; at < bytes.length; at += size) cuts.add(at);
  for (let at = 1; at < bytes.length; at++) {
    // A continuation byte (10xxxxxx) following a lead byte: cut between them.
    if ((bytes[at]! & 0xc0) === 0x80 && (bytes[at - 1]! & 0xc0) === 0xc0) cuts.add(at);
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    chunks.push(bytes.slice(start, cut));
    start = cut;
  }
  chunks.push(bytes.slice(start));
  return chunks;
}

/** True when some chunk ends inside a multi-byte character (a proof the test is hostile). */
export function splitsACharacter(chunks: Uint8Array[]): boolean {
  return chunks.slice(0, -1).some((chunk, index) => {
    const next = chunks[index + 1]!;
    return chunk.length > 0 && next.length > 0 && (next[0]! & 0xc0) === 0x80;
  });
}

export function streamOf(chunks: Uint8Array[], options: { endless?: boolean } = {}): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else if (!options.endless) controller.close();
      // endless: never enqueue again and never close, like a server that stalls.
      else return new Promise<void>(() => undefined);
      return undefined;
    },
  });
}

export function sseResponse(body: ReadableStream<Uint8Array>, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "text/event-stream" } });
}

/** `data: <json>\n\n` per chunk, then `data: [DONE]` (the Chat Completions framing). */
export function openAISse(chunks: readonly (string | object)[], done = true): string {
  const lines = chunks.map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`);
  return lines.join("") + (done ? "data: [DONE]\n\n" : "");
}

/** `event: <type>\ndata: <json>\n\n` per event (the Messages framing). */
export function anthropicSse(events: readonly (string | { type: string })[]): string {
  return events
    .map((event) => {
      const data = typeof event === "string" ? event : JSON.stringify(event);
      const type = (JSON.parse(data) as { type: string }).type;
      return `event: ${type}\ndata: ${data}\n\n`;
    })
    .join("");
}

export const call = (callIndex = 0, extra: Partial<GenerateOptions> = {}): GenerateOptions => ({ callIndex, attempt: 1, ...extra });

export function userRequest(model: string, content = "hello", extra: Partial<LlmRequest> = {}): LlmRequest {
  return { model, messages: [{ role: "user", content }], tools: [], ...extra };
}

/** Awaits a rejection and checks it is a ProviderError of `kind` that never shows the key. */
export async function expectProviderError(promise: Promise<unknown>, kind: ProviderErrorKind): Promise<ProviderError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a ProviderError (${kind}), but the call succeeded`);
    },
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ProviderError);
  const providerError = error as ProviderError;
  expect({ kind: providerError.kind, message: providerError.message }).toMatchObject({ kind });
  expect(providerError.message).not.toContain(API_KEY);
  return providerError;
}
