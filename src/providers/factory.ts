import { ConfigError } from "../errors/index.js";
import type { LanguageModel } from "../contracts/index.js";

export interface ModelSettings {
  provider: "openai" | "anthropic" | "openai-compatible";
  model: string | undefined;
  apiKey: string | undefined;
  /** The environment variable the key was meant to come from, to name it when it is missing. */
  apiKeyVariable: string | undefined;
  baseUrl: string | undefined;
  temperature: number | undefined;
  maxTokens: number | undefined;
  seed: number | undefined;
  timeoutMs: number | undefined;
  stream: boolean;
  fetch?: typeof fetch;
  file?: string;
  /** Where a key not given in config is looked up, under the provider's usual variable. */
  env?: Readonly<Record<string, string | undefined>>;
}

const DEFAULT_KEY_VARIABLE = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", "openai-compatible": undefined } as const;

/** Used when llm.model is absent, so switching llm.provider is the only change a user needs. */
export const DEFAULT_MODEL = { openai: "gpt-4o-mini", anthropic: "claude-haiku-4-5", "openai-compatible": undefined } as const;

/**
 * Creates a real provider; a missing key or model is reported here, before any request.
 * The SDKs are imported only when needed, so mock runs never pay for loading them.
 */
export async function createModel(settings: ModelSettings): Promise<LanguageModel> {
  const place = { ...(settings.file ? { file: settings.file } : {}) };
  const model = settings.model ?? DEFAULT_MODEL[settings.provider];
  if (!model) throw new ConfigError(`llm.model is required for provider ${settings.provider}`, { ...place, path: "llm.model" });
  const defaultVariable = DEFAULT_KEY_VARIABLE[settings.provider];
  let apiKey = settings.apiKey;
  if (!apiKey && !settings.apiKeyVariable && defaultVariable) apiKey = settings.env?.[defaultVariable] || undefined;
  if (!apiKey) {
    const variable = settings.apiKeyVariable ?? defaultVariable;
    // A local server (Ollama, vLLM) may need no key, and then gets no Authorization header;
    // but a key the config asks for (`api_key: ${GROQ_API_KEY}`) must be there.
    if (settings.provider !== "openai-compatible" || settings.apiKeyVariable !== undefined) {
      throw new ConfigError(
        variable
          ? `no API key: environment variable ${variable} is not set`
          : "no API key: set llm.api_key (for example api_key: ${OPENAI_API_KEY})",
        { ...place, path: "llm.api_key" },
      );
    }
  }
  if (settings.provider === "openai-compatible" && !settings.baseUrl) {
    throw new ConfigError("llm.base_url is required for provider openai-compatible", { ...place, path: "llm.base_url" });
  }
  const common = {
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(settings.baseUrl !== undefined ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
    stream: settings.stream,
  };
  if (settings.provider === "anthropic") {
    const { createAnthropicModel } = await import("./anthropic/index.js");
    return createAnthropicModel(common);
  }
  const { createOpenAIModel } = await import("./openai/index.js");
  return createOpenAIModel({
    ...common,
    ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
    provider: settings.provider,
  });
}
