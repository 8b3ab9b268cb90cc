/** Helpers shared by the HTTP providers (OpenAI, Anthropic): errors, deadlines, secrets. */
export { parseRetryAfterMs } from "./retry-after.js";
export { safeCause } from "./safe-cause.js";
export { providerError, providerMessageOf, providerMessageOfText, type ProviderCallContext } from "./errors.js";
export { DEFAULT_CALL_TIMEOUT_MS, startDeadline } from "./deadline.js";
export { captureErrorBodies } from "./capture.js";
export { abortableFetch } from "./abortable.js";
export { parseWire } from "./wire.js";
export { fromSdkError, type SdkErrors } from "./sdk-errors.js";
export { jsonTextAt, type JsonPath } from "./json-text.js";
