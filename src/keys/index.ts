export { answerHeaders, endpointOf, requestKey } from "./request-key.js";
