import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors/index.js";
import { coerceText, parseYaml, readTextFile, validate } from "../validation/index.js";
import { isSecretKey } from "../redaction/index.js";
import { interpolateEnv } from "./interpolate.js";
import { AgentConfigSchema, type AgentConfig } from "./schema.js";

export interface LoadedConfig {
  config: AgentConfig;
  file: string;
  /** Folder relative paths in the config are resolved against. */
  baseDir: string;
  missingEnv: Map<string, string>;
  /**
   * Values of the secret-named variables the config refers to (`${GITHUB_TOKEN}` in a prompt),
   * for the run log to remove. The values of secret-named keys (`api_key`) and of the provider
   * variables are found by buildAgent from the config and the environment.
   */
  secrets?: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

function referencedSecrets(referenced: ReadonlySet<string>, env: Env): string[] {
  return [...referenced].flatMap((name) => {
    const value = env[name];
    return isSecretKey(name) && value ? [value] : [];
  });
}

export function parseConfig(
  text: string,
  options: { file?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): { config: AgentConfig; missingEnv: Map<string, string>; secrets: string[] } {
  const raw = parseYaml(text, options.file);
  const env = options.env ?? process.env;
  const { value, missing, referenced } = interpolateEnv(raw, env, (segments, text) => coerceText(AgentConfigSchema, segments, text), options.file);
  try {
    return { config: validate(AgentConfigSchema, value, options.file), missingEnv: missing, secrets: referencedSecrets(referenced, env) };
  } catch (error) {
    // A value that is wrong because its variable is unset is reported as that.
    const variable = error instanceof ConfigError && error.place.path !== undefined ? missing.get(error.place.path) : undefined;
    if (variable) throw new ConfigError(`environment variable ${variable} is not set (and no default is given: \${${variable}:default})`, (error as ConfigError).place);
    throw error;
  }
}

export function loadConfig(file: string, env: Readonly<Record<string, string | undefined>> = process.env): LoadedConfig {
  const path = resolve(file);
  const { config, missingEnv, secrets } = parseConfig(readTextFile(path, "config file"), { file, env });
  return { config, file, baseDir: dirname(path), missingEnv, secrets };
}
