import { dirname, resolve } from "node:path";
import { parseYaml, readTextFile, validate } from "../validation/index.js";
import { interpolateEnv } from "./interpolate.js";
import { AgentConfigSchema, type AgentConfig } from "./schema.js";

export interface LoadedConfig {
  config: AgentConfig;
  file: string;
  /** Folder relative paths in the config are resolved against. */
  baseDir: string;
  missingEnv: Map<string, string>;
}

export function parseConfig(
  text: string,
  options: { file?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): { config: AgentConfig; missingEnv: Map<string, string> } {
  const raw = parseYaml(text, options.file);
  const { value, missing } = interpolateEnv(raw, options.env ?? process.env);
  return { config: validate(AgentConfigSchema, value, options.file), missingEnv: missing };
}

export function loadConfig(file: string, env: Readonly<Record<string, string | undefined>> = process.env): LoadedConfig {
  const path = resolve(file);
  const { config, missingEnv } = parseConfig(readTextFile(path, "config file"), { file, env });
  return { config, file, baseDir: dirname(path), missingEnv };
}
