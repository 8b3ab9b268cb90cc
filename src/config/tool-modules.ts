import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors/index.js";
import { importNative } from "../runtime/index.js";
import { isTool, type AnyTool } from "../tools/index.js";
import type { LoadedConfig } from "./load.js";

/**
 * The user's own tools: `tools: - module: ./tools.mjs` imports the module (relative to the
 * config file) and takes every export made with `defineTool` — named exports, a default
 * export that is a tool, or a default export that is an array of tools. Each tool declares
 * `idempotent` itself, which is what resume reads to decide whether an interrupted call may
 * run again.
 */
export async function loadToolModules(loaded: LoadedConfig): Promise<Map<number, AnyTool[]>> {
  const found = new Map<number, AnyTool[]>();
  for (const [index, entry] of loaded.config.tools.entries()) {
    if (typeof entry !== "object" || !("module" in entry)) continue;
    const place = { file: loaded.file, path: `tools[${index}].module` };
    const file = resolve(loaded.baseDir, entry.module);
    if (!existsSync(file)) throw new ConfigError(`tool module ${entry.module} not found (looked for ${file})`, place);
    let exports: Record<string, unknown>;
    try {
      exports = (await importNative(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`tool module ${entry.module} could not be loaded: ${(error as Error).message}`, place);
    }
    const tools: AnyTool[] = [];
    for (const [name, value] of Object.entries(exports)) {
      const values = name === "default" && Array.isArray(value) ? value : [value];
      for (const candidate of values) if (isTool(candidate)) tools.push(candidate);
    }
    if (tools.length === 0) throw new ConfigError(`tool module ${entry.module} exports no tools made with defineTool`, place);
    // In name order (code points), whatever order a loader lists the exports in: the tool list
    // is part of every request and of the agent's digest, so it must not depend on the loader.
    const unique = [...new Map(tools.map((tool) => [tool.name, tool])).values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    found.set(index, entry.timeout !== undefined ? unique.map((tool) => ({ ...tool, timeoutMs: entry.timeout as number * 1000 })) : unique);
  }
  return found;
}
