export { formatTrace, describeEvent, tokensText } from "./format.js";
