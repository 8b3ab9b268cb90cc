export { canonicalJson, canonicalCopy, canonicalText, canonicalize, isCanonicalTextOf, orderedTwin, plainCopyAt, sortKeys, LONGEST_PLAIN_STRING, NOT_PLAIN, type CanonicalCopy, type JsonValue } from "./canonical-json.js";
export { sha256, digest } from "./hash.js";
export { frozenDigest } from "./memo.js";
export { deepFreeze, grownFrom, immutable, immutableList, isImmutable, noteWritten } from "./immutable.js";
