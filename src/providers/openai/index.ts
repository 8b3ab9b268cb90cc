/** The OpenAI (and OpenAI-compatible) Chat Completions provider. */
export { createOpenAIModel, OPENAI_BASE_URL, type OpenAIModelOptions } from "./model.js";
export { toChatCompletionBody, type OpenAIDialect, type OpenAIRequestDefaults } from "./request.js";
