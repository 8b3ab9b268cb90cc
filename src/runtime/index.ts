export { importNative } from "./native-import.js";
export { codeCache, useCodeCache, type CodeCacheStore } from "./code-cache.js";
