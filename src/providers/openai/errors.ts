/** The OpenAI SDK's error classes, and how to read an OpenAI(-compatible) error body. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from "openai";
import { providerMessageOf, providerMessageOfText, type SdkErrors } from "../http/index.js";

/** `errorBody` is the raw body captured for this call (see http/capture.ts). */
export function openAIErrors(errorBody: () => Promise<string | undefined>): SdkErrors<APIError> {
  return {
    name: "the OpenAI SDK",
    base: OpenAIError,
    apiError: APIError,
    connectionError: APIConnectionError,
    connectionTimeoutError: APIConnectionTimeoutError,
    userAbortError: APIUserAbortError,
    // The SDK keeps only the body's `error` member; the raw body also has what compatible
    // servers put elsewhere (`message`, `detail`).
    httpMessage: async (error) => providerMessageOfText(await errorBody()) ?? providerMessageOf({ error: error.error }),
    streamError: (error) => ({ kind: "server", message: providerMessageOf({ error: error.error }) ?? error.message }),
  };
}
