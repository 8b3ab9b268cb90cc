/** Small text helpers shared across concerns. */
export { nearest, editDistance } from "./nearest.js";
export { brief } from "./brief.js";
export { shellWord, regexLiteral } from "./shell.js";
