/**
 * Loading refuses a hostile bundle with a typed error that names the entry, and the CLI exits
 * 2 for it: paths that escape, links, devices, FIFOs, duplicates, entries and totals over a
 * limit (a gzip bomb stops while inflating), too many entries, deep JSON, an unknown version,
 * malformed events, and a manifest that disagrees with the content. Nothing is written.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGzip } from "node:zlib";
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/index.js";
import { BundleError } from "../../src/errors/index.js";
import { useTempDirs } from "../e2e/harness.js";
import { BUNDLES, cli } from "./scenarios.js";
import { entriesOf, gz, rawTar, withManifestFor, type RawEntry } from "./tarballs.js";

const tempDir = useTempDirs();
const valid = readFileSync(join(BUNDLES, "blocked-failed.tgz"));
const entries = entriesOf(valid);

async function refusal(bytes: Buffer, limits = {}): Promise<BundleError> {
  const error = await loadBundle(bytes, limits).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  return error as BundleError;
}

const entryData = (path: string): Buffer => entries.find((entry) => entry.path === path)?.data as Buffer;
const pack = (list: RawEntry[]) => gz(rawTar(list));
const replaced = (path: string, data: Buffer) => entries.map((entry) => (entry.path === path ? { ...entry, data } : entry));

describe("paths and entry types", () => {
  it.each([
    ["/etc/passwd", "absolute"],
    ["../outside.txt", "climbs"],
    ["files/../../outside.txt", "climbs"],
    ["C:/Windows/evil.txt", "drive"],
    ["files\\evil.txt", "backslash"],
    ["files/./x.yaml", "empty or ."],
  ])("refuses the entry %s (%s)", async (path, why) => {
    const error = await refusal(pack([...entries, { path, data: Buffer.from("x") }]));
    expect(error.code).toBe("bundle_path");
    expect(error.place.entry).toBe(path);
    expect(error.message).toContain(why);
  });

  it.each([
    ["SymbolicLink", "a symbolic link"],
    ["Link", "a hard link"],
    ["CharacterDevice", "a character device"],
    ["BlockDevice", "a block device"],
    ["FIFO", "a FIFO"],
    ["Directory", "a folder"],
  ] as const)("refuses a %s entry", async (type, words) => {
    const error = await refusal(pack([{ path: "files/agent.yaml", type, linkpath: type.includes("Link") ? "/etc/passwd" : "" }, ...entries]));
    expect(error.code).toBe("bundle_entry_type");
    expect(error.message).toContain(words);
    expect(error.place.entry).toBe("files/agent.yaml");
  });

  it("refuses an entry that appears twice", async () => {
    const error = await refusal(pack([...entries, entries[0] as RawEntry]));
    expect(error.code).toBe("bundle_duplicate");
    expect(error.place.entry).toBe(entries[0]?.path);
  });

  it("refuses a FIFO or a device given as the bundle, without waiting on it", async () => {
    const dir = tempDir();
    const fifo = join(dir, "pipe.tgz");
    execFileSync("mkfifo", [fifo]);
    for (const path of [fifo, "/dev/zero", dir]) {
      const error = await loadBundle(path).catch((caught: unknown) => caught as BundleError);
      expect((error as BundleError).code).toBe("bundle_entry_type");
    }
  });
});

/** gzip of `total` zero bytes, written in slices: the test itself never holds them whole. */
async function zeros(prefix: Buffer, total: number, suffix: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => gzip.on("end", resolve));
  gzip.write(prefix);
  const slice = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < total; written += slice.length) gzip.write(slice);
  gzip.end(suffix);
  await done;
  return Buffer.concat(out);
}

describe("sizes: a gzip bomb stops while it inflates", () => {
  it("refuses an entry whose header announces more than the limit, before inflating its data", async () => {
    const header = rawTar([{ path: "events.jsonl", size: 512 * 1024 * 1024 }], { end: false });
    // 512 MiB of zeros compress to about half a megabyte.
    const bomb = await zeros(header, 8 * 1024 * 1024);
    const error = await refusal(bomb);
    expect(error.code).toBe("bundle_too_large");
    expect(error.place.entry).toBe("events.jsonl");
  });

  it("refuses a total over the limit made of zeros after the end of the archive", async () => {
    const bomb = await zeros(rawTar(entries), 64 * 1024 * 1024);
    const error = await refusal(bomb, { maxTotalBytes: 8 * 1024 * 1024 });
    expect(error.code).toBe("bundle_too_large");
  });

  it("refuses entries under the per-entry limit that add up to more than the total", async () => {
    const many = Array.from({ length: 20 }, (_, index) => ({ path: `files/blob-${index}.txt`, data: Buffer.alloc(100_000, 97) }));
    const error = await refusal(pack([...entries, ...many]), { maxTotalBytes: 1_000_000 });
    expect(error.code).toBe("bundle_too_large");
  });

  it("refuses more entries than the limit", async () => {
    const many = Array.from({ length: 50 }, (_, index) => ({ path: `files/f${index}.txt`, data: Buffer.from("x") }));
    const error = await refusal(pack([...entries, ...many]), { maxEntries: 20 });
    expect(error.code).toBe("bundle_too_large");
  });

  it("refuses a compressed file over the limit without inflating it", async () => {
    const error = await refusal(valid, { maxFileBytes: 100 });
    expect(error.code).toBe("bundle_too_large");
  });
});

describe("content", () => {
  it("refuses JSON nested deeper than the limit, in the manifest and in an event", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const manifest = await refusal(pack(replaced("manifest.json", Buffer.from(deep))));
    expect(manifest.code).toBe("bundle_content");
    expect(manifest.place.entry).toBe("manifest.json");
    const events = (entries.find((entry) => entry.path === "events.jsonl")?.data as Buffer).toString("utf8").split("\n");
    const nested = JSON.parse(events[0] as string) as Record<string, unknown>;
    nested["config"] = JSON.parse(`${"[".repeat(500)}${"]".repeat(500)}`);
    const deepEvent = withManifestFor(replaced("events.jsonl", Buffer.from([JSON.stringify(nested), ...events.slice(1)].join("\n"))));
    const error = await refusal(pack(deepEvent));
    expect(error.code).toBe("bundle_content");
    expect(error.place.entry).toBe("events.jsonl");
  });

  it("refuses an unknown format version, naming the version", async () => {
    const error = await refusal(pack(withManifestFor(entries, (manifest) => (manifest["version"] = 9))));
    expect(error.code).toBe("bundle_version");
    expect(error.message).toContain("version 9");
  });

  it("refuses a malformed event, naming the line", async () => {
    const events = (entries.find((entry) => entry.path === "events.jsonl")?.data as Buffer).toString("utf8").split("\n");
    events[2] = JSON.stringify({ v: 1, runId: "x", seq: 3, type: "tool.exploded" });
    const error = await refusal(pack(withManifestFor(replaced("events.jsonl", Buffer.from(events.join("\n"))))));
    expect(error.code).toBe("bundle_content");
    expect(error.place.path).toBe("line 3");
  });

  it("refuses events that are not canonical bytes (re-serialised)", async () => {
    const events = (entries.find((entry) => entry.path === "events.jsonl")?.data as Buffer).toString("utf8").split("\n");
    events[0] = JSON.stringify(JSON.parse(events[0] as string), null, 1).replace(/\n/g, "");
    const error = await refusal(pack(withManifestFor(replaced("events.jsonl", Buffer.from(events.join("\n"))))));
    expect(error.code).toBe("bundle_content");
  });

  it.each([
    ["an entry changed after capture (same size)", () => pack(replaced("files/mock.yaml", Buffer.from(entryData("files/mock.yaml").toString("utf8").replace("incomplete", "INCOMPLETE")))), "checksum"],
    ["an entry whose size disagrees with the manifest", () => pack(replaced("input.json", Buffer.from('{"turns":["something else"]}'))), "bytes"],
    ["an entry the manifest does not list", () => pack(withManifestFor(entries, (manifest) => delete (manifest["entries"] as Record<string, unknown>)["input.json"])), "not in the manifest"],
    ["an entry the manifest lists but the bundle lacks", () => pack(entries.filter((entry) => entry.path !== "input.json")), "does not hold it"],
    ["a manifest naming another run", () => pack(withManifestFor(entries, (manifest) => (manifest["runId"] = "run_other"))), "run"],
    ["an input that disagrees with the log", () => pack(withManifestFor(replaced("input.json", Buffer.from('{"turns":["something else"]}')))), "input"],
    ["a manifest without the run's start as createdAt", () => pack(withManifestFor(entries, (manifest) => (manifest["createdAt"] = "2020-01-01T00:00:00.000Z"))), "createdAt"],
  ])("refuses %s", async (_name, make, words) => {
    const error = await refusal(make());
    expect(error.code).toBe("bundle_mismatch");
    expect(error.message).toContain(words);
  });

  it("refuses a file that is not gzip, a cut-short archive, and data after the end", async () => {
    expect((await refusal(Buffer.from("not a bundle"))).code).toBe("bundle_malformed");
    expect((await refusal(valid.subarray(0, valid.length - 9))).code).toBe("bundle_malformed");
    expect((await refusal(gz(rawTar(entries, { end: false })))).code).toBe("bundle_malformed");
    expect((await refusal(gz(Buffer.concat([rawTar(entries), rawTar([{ path: "late.txt", data: Buffer.from("x") }])])))).code).toBe("bundle_malformed");
  });
});

describe("through the CLI", () => {
  it("inspect and replay exit 2 with the error and the entry, no stack trace, and write nothing", async () => {
    const dir = tempDir();
    const file = join(dir, "evil.tgz");
    writeFileSync(file, pack([...entries, { path: "../../evil.sh", data: Buffer.from("rm -rf /") }]));
    const scratch = join(dir, "tmp");
    mkdirSync(scratch);
    for (const command of ["inspect", "replay"]) {
      const { code, io } = await cli(dir, [command, file], { TMPDIR: scratch });
      expect(code).toBe(2);
      expect(io.err).toContain("entry ../../evil.sh");
      expect(io.err).toContain("climbs out");
      expect(io.err).not.toContain("    at ");
    }
    expect(readdirSync(dir).sort()).toEqual(["evil.tgz", "tmp"]);
    expect(readdirSync(scratch)).toEqual([]);
  });
});
