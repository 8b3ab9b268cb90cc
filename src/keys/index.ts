export { endpointOf, requestKey } from "./request-key.js";
