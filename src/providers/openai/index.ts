/** The OpenAI (and OpenAI-compatible) Chat Completions provider. */
export { createOpenAIModel, type OpenAIModelOptions } from "./model.js";
