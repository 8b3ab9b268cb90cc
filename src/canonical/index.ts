export { canonicalJson, canonicalize, type JsonValue } from "./canonical-json.js";
export { sha256, digest } from "./hash.js";
export { frozenDigest } from "./memo.js";
