/**
 * Bytes to stored bodies and back, exactly: JSON as JSON only when it re-serialises to the same
 * bytes, text when the bytes are valid UTF-8, base64 otherwise.
 */
import type { StoredBody, StoredChunk, StoredResponseBody } from "./format.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The bytes as text, if they are valid UTF-8 on their own (a chunk cut inside a character is not). */
export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function fromBase64(text: string): Uint8Array {
  const buffer = Buffer.from(text, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** A body as stored: `json` when `JSON.stringify` gives back exactly these bytes. */
export function storeBody(bytes: Uint8Array, contentType: string | undefined): StoredBody {
  const text = utf8(bytes);
  if (text === undefined) return { base64: base64(bytes) };
  if (isJsonType(contentType) && text.length > 0) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { text };
    }
    if (JSON.stringify(parsed) === text) return { json: parsed };
    if (JSON.stringify(parsed, null, 2) === text) return { json: parsed, indent: 2 };
  }
  return { text };
}

export function storeChunk(bytes: Uint8Array, at: number): StoredChunk {
  const text = utf8(bytes);
  return text === undefined ? { at, base64: base64(bytes) } : { at, text };
}

/** The exact bytes of a stored body. */
export function bodyText(body: StoredBody): string | undefined {
  if ("json" in body) return body.indent ? JSON.stringify(body.json, null, 2) : JSON.stringify(body.json);
  if ("text" in body) return body.text;
  return undefined;
}

export function bodyBytes(body: StoredBody): Uint8Array {
  const text = bodyText(body);
  return text !== undefined ? encoder.encode(text) : fromBase64((body as { base64: string }).base64);
}

export function chunkBytes(chunk: StoredChunk): Uint8Array {
  return "text" in chunk ? encoder.encode(chunk.text) : fromBase64(chunk.base64);
}

/** Every byte of a response body, chunks joined. */
export function responseBytes(body: StoredResponseBody | undefined): Uint8Array {
  if (!body) return new Uint8Array(0);
  if (!("chunks" in body)) return bodyBytes(body);
  const parts = body.chunks.map(chunkBytes);
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

export function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType.trim());
}

/** Bodies that arrive as a stream of events: kept as their chunks, with boundaries and timing. */
export function isStreamType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^(?:text\/event-stream|application\/(?:x-)?ndjson|application\/jsonl)\b/i.test(contentType.trim());
}
