/**
 * The cassette file: a versioned JSON document of recorded HTTP exchanges (docs/cassettes.md).
 * Validated with zod on load; a file of another version, or one that is damaged or hand-edited
 * (an entry whose key no longer matches its request), is refused with an error naming the file
 * and the entry.
 */
import { z } from "zod";

export const CASSETTE_FORMAT = "retrace-cassette";
export const CASSETTE_VERSION = 1;

/**
 * A body. `json` only when re-serialising the parsed value gives back the exact bytes (compact, or
 * `indent: 2`), so a replayed body is always byte-identical to the recorded one.
 */
export const BodySchema = z.union([
  z.strictObject({ json: z.unknown(), indent: z.literal(2).optional() }),
  z.strictObject({ text: z.string() }),
  z.strictObject({ base64: z.base64() }),
]);
export type StoredBody = z.infer<typeof BodySchema>;

/**
 * One chunk of a streamed body, as it arrived: `at` is its offset in ms from the response
 * headers. Bytes that are valid UTF-8 on their own are kept as text, anything else (a chunk cut
 * inside a character) as base64: both round-trip exactly.
 */
export const ChunkSchema = z.union([
  z.strictObject({ at: z.number().nonnegative(), text: z.string() }),
  z.strictObject({ at: z.number().nonnegative(), base64: z.base64() }),
]);
export type StoredChunk = z.infer<typeof ChunkSchema>;

export const ResponseBodySchema = z.union([BodySchema, z.strictObject({ chunks: z.array(ChunkSchema) })]);
export type StoredResponseBody = z.infer<typeof ResponseBodySchema>;

const Headers = z.record(z.string(), z.string());

export const RequestSchema = z.strictObject({
  method: z.string().min(1),
  /** Without credentials in the query; the query sorted. */
  url: z.url(),
  /** Only the headers that change an answer (docs/cassettes.md); never credentials. */
  headers: Headers,
  body: BodySchema.optional(),
});
export type CanonicalRequest = z.infer<typeof RequestSchema>;

export const ResponseSchema = z.strictObject({
  status: z.number().int().min(200).max(599),
  /** Only the headers a client acts on (content-type, retry-after, ...); never cookies. */
  headers: Headers,
  body: ResponseBodySchema.optional(),
});
export type StoredResponse = z.infer<typeof ResponseSchema>;

export const EntrySchema = z.strictObject({
  /** sha256 of the canonical request (see request.ts): what a new request is matched by. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** 0-based, among entries of the same key: N identical calls get the N recorded answers in order. */
  ordinal: z.number().int().nonnegative(),
  request: RequestSchema,
  response: ResponseSchema,
});
export type CassetteEntry = z.infer<typeof EntrySchema>;

export const CassetteSchema = z.strictObject({
  format: z.literal(CASSETTE_FORMAT),
  version: z.literal(CASSETTE_VERSION),
  entries: z.array(EntrySchema),
});
export type CassetteDocument = z.infer<typeof CassetteSchema>;
