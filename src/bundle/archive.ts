/**
 * The tarball itself: written with node-tar's ustar headers so that its bytes depend only on
 * the entries, and read back by a streaming parser that refuses, entry by entry and before
 * inflating any further, whatever a bundle never holds.
 */
import { createRequire } from "node:module";
import { createGunzip, gzipSync } from "node:zlib";
import type { Header as TarHeader } from "tar/header";
import { BundleError } from "../errors/index.js";
import { entryNameProblem, type BundleLimits } from "./format.js";

const BLOCK = 512;

// node-tar's header codec alone (not its whole index, ~84 KB of minified module) and only when a
// bundle is written or read: every eval file imports the public index, which exports bundles.
let header: typeof TarHeader | undefined;
const Header = (): typeof TarHeader => (header ??= (createRequire(import.meta.url)("tar/header") as { Header: typeof TarHeader }).Header);

/**
 * A deterministic .tgz: entries sorted by name (byte order), mode 0644, uid/gid 0, no owner
 * names, mtime 0, and a gzip header with no time and no OS (the byte zlib fills in differs
 * between systems).
 */
export function writeTarGz(entries: ReadonlyMap<string, Buffer>): Buffer {
  const names = [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: Buffer[] = [];
  for (const name of names) {
    const problem = entryNameProblem(name);
    if (problem) throw new BundleError("bundle_path", `cannot write entry: ${problem}`, { entry: name });
    const data = entries.get(name) as Buffer;
    const header = new (Header())({ path: name, mode: 0o644, uid: 0, gid: 0, size: data.length, mtime: new Date(0), type: "File", uname: "", gname: "" });
    const block = Buffer.alloc(BLOCK);
    header.encode(block, 0);
    parts.push(block, data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  const gz = gzipSync(Buffer.concat(parts), { level: 6 });
  gz.writeUInt32LE(0, 4);
  gz[9] = 0xff;
  return gz;
}

const ENTRY_TYPE_WORDS: Record<string, string> = {
  Link: "a hard link",
  SymbolicLink: "a symbolic link",
  CharacterDevice: "a character device",
  BlockDevice: "a block device",
  Directory: "a folder",
  FIFO: "a FIFO",
  ContiguousFile: "a contiguous file",
  GlobalExtendedHeader: "a pax global header",
  ExtendedHeader: "a pax header",
  NextFileHasLongPath: "a GNU long-name header",
  NextFileHasLongLinkpath: "a GNU long-link header",
};

/**
 * Reads a .tgz into its entries. Inflates as a stream and stops at the first problem: an entry
 * whose header announces more than the limit is refused before its data is inflated, and the
 * running total bounds what a bomb of small entries or trailing zeros can cost.
 */
export async function readTarGz(compressed: Buffer, limits: BundleLimits): Promise<Map<string, Buffer>> {
  if (compressed.length > limits.maxFileBytes) {
    throw new BundleError("bundle_too_large", `the bundle file is ${compressed.length} bytes; the limit is ${limits.maxFileBytes}`);
  }
  if (compressed.length < 2 || compressed[0] !== 0x1f || compressed[1] !== 0x8b) throw new BundleError("bundle_malformed", "not a gzip file (a bundle is a .tgz)");
  const parser = new TarParser(limits);
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  gunzip.end(compressed);
  try {
    for await (const chunk of gunzip) parser.push(chunk as Buffer);
  } catch (error) {
    gunzip.destroy();
    if (error instanceof BundleError) throw error;
    throw new BundleError("bundle_malformed", `the gzip stream is damaged: ${(error as Error).message}`);
  }
  return parser.finish();
}

class TarParser {
  readonly #limits: BundleLimits;
  readonly #entries = new Map<string, Buffer>();
  #pending: Buffer = Buffer.alloc(0);
  #total = 0;
  #current: { name: string; size: number; chunks: Buffer[]; received: number } | undefined;
  #skip = 0;
  #zeroBlocks = 0;

  constructor(limits: BundleLimits) {
    this.#limits = limits;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    // Headers and padding count too: a bomb of zero blocks is as costly as one of data.
    if (this.#total > this.#limits.maxTotalBytes + BLOCK * (this.#entries.size + 3)) {
      throw new BundleError("bundle_too_large", `the bundle inflates to more than ${this.#limits.maxTotalBytes} bytes`);
    }
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    let offset = 0;
    for (;;) {
      if (this.#current) {
        const want = this.#current.size - this.#current.received;
        const take = Math.min(want, this.#pending.length - offset);
        if (take > 0) {
          this.#current.chunks.push(this.#pending.subarray(offset, offset + take));
          this.#current.received += take;
          offset += take;
        }
        if (this.#current.received < this.#current.size) break;
        this.#entries.set(this.#current.name, Buffer.concat(this.#current.chunks));
        this.#skip = (BLOCK - (this.#current.size % BLOCK)) % BLOCK;
        this.#current = undefined;
      }
      if (this.#skip > 0) {
        const take = Math.min(this.#skip, this.#pending.length - offset);
        offset += take;
        this.#skip -= take;
        if (this.#skip > 0) break;
      }
      if (this.#pending.length - offset < BLOCK) break;
      this.#header(this.#pending.subarray(offset, offset + BLOCK));
      offset += BLOCK;
    }
    this.#pending = Buffer.from(this.#pending.subarray(offset));
  }

  #header(block: Buffer): void {
    if (block.every((byte) => byte === 0)) {
      this.#zeroBlocks++;
      return;
    }
    if (this.#zeroBlocks > 0) throw new BundleError("bundle_malformed", "data after the end of the archive");
    const header = new (Header())(block);
    if (!header.cksumValid) throw new BundleError("bundle_malformed", `a damaged tar header (bad checksum) after ${this.#entries.size} entries`);
    const name = header.path ?? "";
    const type = header.type;
    if (type !== "File" && type !== "OldFile") {
      throw new BundleError("bundle_entry_type", `${ENTRY_TYPE_WORDS[type] ?? `an entry of type ${type}`}; a bundle holds regular files only`, { entry: name });
    }
    const problem = entryNameProblem(name);
    if (problem) throw new BundleError("bundle_path", `refused: ${problem}`, { entry: name });
    if (this.#entries.has(name)) throw new BundleError("bundle_duplicate", "the entry appears twice", { entry: name });
    if (this.#entries.size >= this.#limits.maxEntries) throw new BundleError("bundle_too_large", `more than ${this.#limits.maxEntries} entries`, { entry: name });
    const size = header.size ?? 0;
    if (!Number.isSafeInteger(size) || size < 0) throw new BundleError("bundle_malformed", "the entry's size cannot be read", { entry: name });
    if (size > this.#limits.maxEntryBytes) {
      throw new BundleError("bundle_too_large", `the entry is ${size} bytes; the limit is ${this.#limits.maxEntryBytes}`, { entry: name });
    }
    this.#current = { name, size, chunks: [], received: 0 };
  }

  finish(): Map<string, Buffer> {
    if (this.#current) throw new BundleError("bundle_malformed", "the archive ends inside an entry", { entry: this.#current.name });
    if (this.#pending.some((byte) => byte !== 0)) throw new BundleError("bundle_malformed", "the archive ends inside a header");
    if (this.#zeroBlocks < 2) throw new BundleError("bundle_malformed", "the archive has no end marker (it was cut short)");
    return this.#entries;
  }
}
