/** The Anthropic Messages provider. */
export { createAnthropicModel, type AnthropicModelOptions } from "./model.js";
