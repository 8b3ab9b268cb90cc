/** Tarballs built by hand, with whatever a hostile bundle might hold, for the loader to refuse. */
import { gunzipSync, gzipSync } from "node:zlib";
import { Header, type HeaderData } from "tar";
import { sha256 } from "../../src/canonical/index.js";

export interface RawEntry {
  path: string;
  data?: Buffer;
  type?: HeaderData["type"];
  linkpath?: string;
  /** Declared size, when it should differ from the data's. */
  size?: number;
}

export function rawTar(entries: readonly RawEntry[], options: { end?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    const block = Buffer.alloc(512);
    new Header({
      path: entry.path,
      mode: 0o644,
      uid: 0,
      gid: 0,
      size: entry.size ?? data.length,
      mtime: new Date(0),
      type: entry.type ?? "File",
      ...(entry.linkpath ? { linkpath: entry.linkpath } : {}),
    }).encode(block, 0);
    parts.push(block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  if (options.end !== false) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const gz = (tar: Buffer): Buffer => gzipSync(tar);

/** The entries of a valid bundle, to tamper with and pack again. */
export function entriesOf(bundle: Buffer): RawEntry[] {
  const tar = gunzipSync(bundle);
  const entries: RawEntry[] = [];
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = new Header(tar, offset);
    if (header.nullBlock || !header.path) break;
    const size = header.size ?? 0;
    entries.push({ path: header.path, data: Buffer.from(tar.subarray(offset + 512, offset + 512 + size)) });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/** A manifest that agrees with the given entries again (after the test changed one on purpose). */
export function withManifestFor(entries: RawEntry[], change: (manifest: Record<string, unknown>) => void = () => undefined): RawEntry[] {
  const manifestEntry = entries.find((entry) => entry.path === "manifest.json") as RawEntry;
  const manifest = JSON.parse((manifestEntry.data as Buffer).toString("utf8")) as Record<string, unknown>;
  manifest["entries"] = Object.fromEntries(
    entries.filter((entry) => entry.path !== "manifest.json").map((entry) => [entry.path, { sha256: sha256(entry.data ?? Buffer.alloc(0)), size: (entry.data ?? Buffer.alloc(0)).length }]),
  );
  change(manifest);
  return entries.map((entry) => (entry.path === "manifest.json" ? { ...entry, data: Buffer.from(JSON.stringify(manifest)) } : entry));
}
