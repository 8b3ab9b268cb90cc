/** The Anthropic Messages provider. */
export { createAnthropicModel, ANTHROPIC_BASE_URL, type AnthropicModelOptions } from "./model.js";
export { toMessagesBody, toolInputOf, DEFAULT_MAX_TOKENS, type AnthropicRequestDefaults } from "./request.js";
