export { globToRegExp, globBase, hasGlob } from "./glob.js";
export { unsafeRegexReason } from "./regex-safety.js";
