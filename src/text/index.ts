/** Small text helpers shared across concerns. */
export { nearest, editDistance } from "./nearest.js";
