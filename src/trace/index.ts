export { formatTrace, describeEvent } from "./format.js";
