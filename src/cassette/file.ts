/**
 * Reading and writing cassette files. A file is written whole, atomically (a temporary file in
 * the same folder, fsync, rename), after every entry that completes: a crash mid-recording
 * leaves the file as it was after the last complete entry, never a torn one. So a file that is
 * truncated or does not parse was damaged after Retrace wrote it, and is refused rather than
 * repaired. (An append-only JSONL log would make each write O(1), but then a torn last line is
 * normal and a truncated file can no longer be told from a crashed recording; cassettes are small
 * — one per case or run — so rewriting one costs little.)
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { CassetteError } from "../errors/index.js";
import { responseBytes } from "./body.js";
import { CASSETTE_FORMAT, CASSETTE_VERSION, CassetteSchema, type CassetteDocument, type CassetteEntry, type StoredResponseBody } from "./format.js";
import { requestKey } from "./request.js";

/** Reads and validates a cassette; `undefined` when there is no file. */
export function readCassette(file: string): CassetteDocument | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CassetteError("cassette_io", `cannot read the cassette: ${(error as Error).message}`, { file });
  }
  return parseCassette(text, file);
}

/** Parses and validates a cassette's text: the format, the version, every entry, and that each key matches its request. */
export function parseCassette(text: string, file: string): CassetteDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message);
    const at = position ? Number(position[1]) : text.length;
    const entry = entryAt(text, at);
    const line = text.slice(0, at).split("\n").length;
    throw new CassetteError(
      "cassette_invalid",
      `the cassette is not valid JSON at line ${line}${at >= text.trimEnd().length ? " (the file is truncated)" : ""}; re-record it`,
      { file, ...(entry !== undefined ? { entry: `entries[${entry}]` } : {}) },
    );
  }
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (head === null || typeof head !== "object" || head.format !== CASSETTE_FORMAT) {
    throw new CassetteError("cassette_invalid", `not a cassette: "format" must be "${CASSETTE_FORMAT}"`, { file });
  }
  if (head.version !== CASSETTE_VERSION) {
    throw new CassetteError("cassette_version", `cassette version ${JSON.stringify(head.version)} is not one this Retrace reads (it reads version ${CASSETTE_VERSION})`, { file });
  }
  const parsed = CassetteSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [first, index, ...rest] = issue.path;
    const entry = first === "entries" && typeof index === "number" ? `entries[${index}]` : undefined;
    const where = (entry ? rest : issue.path).map(String).join(".");
    throw new CassetteError("cassette_invalid", `${where ? `${where}: ` : ""}${issue.message}`, { file, ...(entry ? { entry } : {}) });
  }
  const seen = new Map<string, number>();
  parsed.data.entries.forEach((entry, index) => {
    if (requestKey(entry.request) !== entry.key) {
      throw new CassetteError("cassette_invalid", `the key does not match the recorded request (the entry was edited by hand?); re-record it`, { file, entry: `entries[${index}]` });
    }
    const ordinal = seen.get(entry.key) ?? 0;
    if (entry.ordinal !== ordinal) {
      throw new CassetteError("cassette_invalid", `ordinal ${entry.ordinal} where ${ordinal} was expected (ordinals of one key count 0, 1, 2, … in file order)`, { file, entry: `entries[${index}]` });
    }
    seen.set(entry.key, ordinal + 1);
  });
  return parsed.data;
}

/** Which entry of a pretty-printed cassette the character at `at` falls in. */
function entryAt(text: string, at: number): number | undefined {
  const start = text.indexOf('"entries": [');
  if (start < 0 || at < start) return undefined;
  const starts = text.slice(start, at).match(/\n {4}\{/g);
  return starts ? starts.length - 1 : undefined;
}

/** The file's text: fixed key order, two-space indent, one chunk per line group; the same entries give the same bytes. */
export function serializeCassette(entries: readonly CassetteEntry[]): string {
  const document: CassetteDocument = {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    entries: entries.map((entry) => ({
      key: entry.key,
      ordinal: entry.ordinal,
      request: {
        method: entry.request.method,
        url: entry.request.url,
        headers: sortedRecord(entry.request.headers),
        ...(entry.request.body ? { body: entry.request.body } : {}),
      },
      response: {
        status: entry.response.status,
        headers: sortedRecord(entry.response.headers),
        ...(entry.response.body ? { body: orderedBody(entry.response.body) } : {}),
      },
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function orderedBody(body: StoredResponseBody): StoredResponseBody {
  if ("chunks" in body) return { chunks: body.chunks.map((chunk) => ("text" in chunk ? { at: chunk.at, text: chunk.text } : { at: chunk.at, base64: chunk.base64 })) };
  if ("json" in body) return body.indent ? { json: body.json, indent: body.indent } : { json: body.json };
  return body;
}

/** Named secret values that must not be in a cassette. */
export type Secrets = Readonly<Record<string, string | undefined>>;

/** Refuses entries that still hold a secret value anywhere: in the JSON, or in body bytes a chunk boundary or base64 hides. */
export function refuseSecrets(entries: readonly CassetteEntry[], secrets: Secrets, file: string): void {
  const values = Object.entries(secrets).filter((pair): pair is [string, string] => typeof pair[1] === "string" && pair[1].length >= 8);
  if (values.length === 0) return;
  entries.forEach((entry, index) => {
    const texts = [JSON.stringify(entry), Buffer.from(responseBytes(entry.response.body)).toString("utf8")];
    for (const [name, value] of values) {
      const spelled = JSON.stringify(value).slice(1, -1);
      if (texts.some((text) => text.includes(value) || text.includes(spelled))) {
        throw new CassetteError("cassette_secret", `the recording holds the value of ${name}; the cassette was not written (add a redaction pattern, or check what echoes the key)`, {
          file,
          entry: `entries[${index}]`,
        });
      }
    }
  });
}

/** Writes the file atomically: the old file stays whole until the new one is complete on disk. */
export function writeCassette(file: string, entries: readonly CassetteEntry[], secrets: Secrets = {}): void {
  refuseSecrets(entries, secrets, file);
  const text = serializeCassette(entries);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, "w");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CassetteError("cassette_io", `cannot write the cassette: ${(error as Error).message}`, { file });
  }
}
