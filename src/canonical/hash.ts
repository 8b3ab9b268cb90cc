import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 of a value's canonical JSON: equal values give equal digests whatever their key order. */
export function digest(value: unknown): string {
  return sha256(canonicalJson(value));
}
