export { globToRegExp, globBase, hasGlob } from "./glob.js";
export { unsafeRegexReason } from "./regex-safety.js";
export { compileLinear, type LinearRegex } from "./linear-regex.js";
