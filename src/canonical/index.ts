export { canonicalJson, canonicalCopy, canonicalText, canonicalize, isCanonicalTextOf, sortKeys, type CanonicalCopy, type JsonValue } from "./canonical-json.js";
export { sha256, digest } from "./hash.js";
export { frozenDigest } from "./memo.js";
export { deepFreeze, grownFrom, immutable, immutableList, isImmutable, noteWritten } from "./immutable.js";
