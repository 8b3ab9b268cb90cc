/**
 * Every load of a damaged bundle either succeeds with verified content or fails with a typed
 * BundleError — never another exception, a hang or an unbounded allocation. Mutations: bit
 * flips in the compressed file and in the archive inside it, truncation, entries swapped
 * (which is harmless: order carries no meaning) and entries renamed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadBundle, type Bundle } from "../../src/bundle/index.js";
import { BundleError } from "../../src/errors/index.js";
import { BUNDLES } from "./scenarios.js";
import { entriesOf, rawTar } from "./tarballs.js";

const sources = ["blocked-failed.tgz", "parallel-sub-agent.tgz", "openai-wire.tgz"].map((name) => readFileSync(join(BUNDLES, name)));

type Outcome = { ok: true; bundle: Bundle } | { ok: false; error: unknown };

async function attempt(bytes: Buffer): Promise<Outcome> {
  try {
    return { ok: true, bundle: await loadBundle(bytes, { maxTotalBytes: 4 * 1024 * 1024, maxEntryBytes: 2 * 1024 * 1024 }) };
  } catch (error) {
    return { ok: false, error };
  }
}

function verified(outcome: Outcome, original: Buffer): void {
  if (!outcome.ok) {
    expect(outcome.error).toBeInstanceOf(BundleError);
    expect((outcome.error as BundleError).code).toMatch(/^bundle_/);
    return;
  }
  // Loaded: the content is what the manifest vouches for, which is what was captured.
  const { bundle } = outcome;
  expect(bundle.logSha256).toBe(bundle.manifest.entries["events.jsonl"]?.sha256);
  const captured = entriesOf(original).find((entry) => entry.path === "events.jsonl")?.data as Buffer;
  expect(bundle.runs.flatMap((run) => run.lines).join("\n") + "\n").toBe(captured.toString("utf8"));
}

const flipBit = (bytes: Buffer, index: number, bit: number): Buffer => {
  const copy = Buffer.from(bytes);
  copy[index % copy.length] = (copy[index % copy.length] as number) ^ (1 << bit);
  return copy;
};

describe("mutated bundles", () => {
  it("bit flips in the compressed file", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(sources.length - 1), fc.nat(), fc.nat(7), async (which, index, bit) => {
        const source = sources[which] as Buffer;
        verified(await attempt(flipBit(source, index, bit)), source);
      }),
      { numRuns: 150 },
    );
  });

  it("bit flips in the archive, compressed again (past gzip's own check)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(sources.length - 1), fc.nat(), fc.nat(7), async (which, index, bit) => {
        const source = sources[which] as Buffer;
        verified(await attempt(gzipSync(flipBit(gunzipSync(source), index, bit))), source);
      }),
      { numRuns: 150 },
    );
  });

  it("truncation, of the file and of the archive inside it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(sources.length - 1), fc.nat(), fc.boolean(), async (which, cut, inner) => {
        const source = sources[which] as Buffer;
        const bytes = inner ? gzipSync(gunzipSync(source).subarray(0, cut % gunzipSync(source).length)) : source.subarray(0, cut % source.length);
        verified(await attempt(bytes), source);
      }),
      { numRuns: 100 },
    );
  });

  it("entries swapped and renamed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(sources.length - 1), fc.nat(), fc.nat(), fc.option(fc.stringMatching(/^[a-z./]{1,12}$/)), async (which, first, second, rename) => {
        const source = sources[which] as Buffer;
        const entries = entriesOf(source);
        const a = first % entries.length;
        const b = second % entries.length;
        [entries[a], entries[b]] = [entries[b] as (typeof entries)[number], entries[a] as (typeof entries)[number]];
        if (rename !== null) entries[a] = { ...(entries[a] as (typeof entries)[number]), path: rename };
        let tar: Buffer;
        try {
          tar = rawTar(entries);
        } catch {
          return; // a name node-tar cannot even encode
        }
        const outcome = await attempt(gzipSync(tar));
        verified(outcome, source);
        if (rename === null) expect(outcome.ok).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
