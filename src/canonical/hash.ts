import * as crypto from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/**
 * One-shot hashing (Node >= 20.12): no Hash object per digest, which cost about as much as
 * hashing a short text (an agent's digest, a case's key, on every case). Same bytes hashed.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash;

export function sha256(data: string | Uint8Array): string {
  // Stryker disable next-line StringLiteral: the Hash-object fallback runs only on Node < 20.12; the tests pin the one-shot branch to a Hash object's bytes
  return oneShot ? oneShot("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex");
}

/** sha256 of a value's canonical JSON: equal values give equal digests whatever their key order. */
export function digest(value: unknown): string {
  return sha256(canonicalJson(value));
}
