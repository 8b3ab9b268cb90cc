/** Helpers shared by the HTTP providers (OpenAI, Anthropic): errors, deadlines, secrets. */
export { parseRetryAfterMs } from "./retry-after.js";
export { scrubSecrets, safeCause } from "./secrets.js";
export {
  errorFromHttpStatus,
  providerError,
  providerMessageOf,
  providerMessageOfText,
  rootCauseMessage,
  type HttpFailure,
  type ProviderCallContext,
} from "./errors.js";
export { startDeadline, type CallDeadline } from "./deadline.js";
export { captureErrorBodies, type ErrorBodyCapture } from "./capture.js";
export { abortableFetch } from "./abortable.js";
export { describeShapeError, parseWire } from "./wire.js";
export { fromSdkError, type FailedCall, type SdkApiError, type SdkErrors } from "./sdk-errors.js";
