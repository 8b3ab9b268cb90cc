import * as crypto from "node:crypto";

/**
 * The hash chain of a run: each row's link is sha256 over the previous link and the row's
 * stored bytes. It lives in its own column, so the event bytes — what bundles and
 * byte-identical replay compare — are exactly what they were without it.
 *
 * An edited body, a deleted row or two swapped rows break the link of the first row that no
 * longer follows from its predecessor. A log cut at its end cannot be told from a crash
 * before the next write, and is not reported: that is what a crash leaves, and resume
 * continues it.
 */
export const CHAIN_START = "";

/** `body` as one string or as parts whose concatenation it is (a long body is never flattened for this). */
export function chainLink(previous: string, body: string | readonly string[]): string {
  // One-shot hashing (Node >= 20.12) skips a Hash object per row, which cost more than hashing
  // the row's bytes for a long log; the bytes hashed are the same.
  if (typeof body === "string" && oneShot) return oneShot("sha256", `${previous}\n${body}`, "hex");
  const hash = crypto.createHash("sha256").update(previous).update("\n");
  if (typeof body === "string") hash.update(body);
  else for (const part of body) hash.update(part);
  return hash.digest("hex");
}

const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export type ChainReport =
  | { ok: true; events: number; head: string }
  | { ok: false; events: number; seq: number; problem: string };

/** Checks rows of one run, in seq order from seq 1. */
export function checkChain(rows: readonly { seq: number; body: string; chain: string | null }[]): ChainReport {
  let previous = CHAIN_START;
  let expectedSeq = 1;
  for (const row of rows) {
    if (row.seq !== expectedSeq) {
      return { ok: false, events: rows.length, seq: expectedSeq, problem: `seq ${expectedSeq} is missing (the next row is seq ${row.seq}): a row was deleted` };
    }
    if (row.chain === null) return { ok: false, events: rows.length, seq: row.seq, problem: "the row has no chain link (it was inserted by something other than Retrace)" };
    const link = chainLink(previous, row.body);
    if (link !== row.chain) {
      return {
        ok: false,
        events: rows.length,
        seq: row.seq,
        problem: "the row's bytes do not match its chain link: it was edited, replaced, or moved from another place in the log",
      };
    }
    previous = link;
    expectedSeq++;
  }
  return { ok: true, events: rows.length, head: previous };
}
