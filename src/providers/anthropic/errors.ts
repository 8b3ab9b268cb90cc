/** The Anthropic SDK's error classes, and how to read an Anthropic error. */
import { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { ProviderErrorKind } from "../../errors/index.js";
import { providerMessageOf, type SdkErrors } from "../http/index.js";

export const anthropicErrors: SdkErrors<APIError> = {
  name: "the Anthropic SDK",
  base: AnthropicError,
  apiError: APIError,
  connectionError: APIConnectionError,
  connectionTimeoutError: APIConnectionTimeoutError,
  userAbortError: APIUserAbortError,
  httpMessage: async (error) => explanationOf(error),
  streamError: (error) => ({ kind: kindOfErrorType(error.type), message: explanationOf(error) ?? error.message }),
};

/** This SDK keeps the whole body in `error`. */
function explanationOf(error: APIError): string | undefined {
  return error.apiMessage ?? providerMessageOf(error.error);
}

/** A stream's `event: error` has no status; its `error.type` says the same thing instead. */
function kindOfErrorType(type: string | null): ProviderErrorKind {
  switch (type) {
    case "authentication_error":
    case "permission_error":
      return "auth";
    case "not_found_error":
      return "not_found";
    case "invalid_request_error":
    case "request_too_large":
      return "bad_request";
    case "rate_limit_error":
      return "rate_limited";
    case "timeout_error":
      return "timeout";
    default:
      // overloaded_error, api_error, and anything new: the server failed mid-answer.
      return "server";
  }
}
