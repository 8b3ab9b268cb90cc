/**
 * `--model <provider:model>` for the benchmark commands: a configured provider, or `scripted:<file>`
 * (recorded replies, for tests and offline checks).
 */
import { UsageError } from "../../errors/index.js";
import { nearest } from "../../text/index.js";

export type ModelChoice =
  | { kind: "live"; llm: { provider: "openai" | "anthropic" | "openai-compatible"; model: string; base_url?: string } }
  | { kind: "scripted"; file: string };

const PROVIDERS = ["openai", "anthropic", "openai-compatible", "scripted"] as const;

export function parseModelChoice(command: string, text: string | undefined, baseUrl?: string): ModelChoice {
  if (!text) throw new UsageError(`${command}: --model is required, e.g. --model openai:gpt-4o-mini or --model scripted:replies.jsonl`);
  const colon = text.indexOf(":");
  const provider = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? "" : text.slice(colon + 1);
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    const suggestion = nearest(provider, [...PROVIDERS]);
    throw new UsageError(`${command}: --model ${JSON.stringify(text)}: unknown provider "${provider}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; use one of ${PROVIDERS.join(", ")} followed by ":" and the model (or script file)`);
  }
  if (!rest) throw new UsageError(`${command}: --model ${JSON.stringify(text)}: give the model after the provider, e.g. ${provider}:${provider === "scripted" ? "replies.jsonl" : "<model>"}`);
  if (provider === "scripted") return { kind: "scripted", file: rest };
  if (provider === "openai-compatible" && !baseUrl) throw new UsageError(`${command}: --model openai-compatible:… needs --base-url <url> of the endpoint`);
  return { kind: "live", llm: { provider: provider as "openai" | "anthropic" | "openai-compatible", model: rest, ...(baseUrl ? { base_url: baseUrl } : {}) } };
}
