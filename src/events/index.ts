export * from "./schemas.js";
export { parseEvent, serializeEvent } from "./codec.js";
export { EventFormatError } from "../errors/index.js";
