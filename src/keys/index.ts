export { requestKey } from "./request-key.js";
