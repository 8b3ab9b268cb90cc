import type { AnyTool } from "../define.js";
import { nearest } from "../../text/index.js";
import { calculatorTool } from "./calculator.js";
import { BuiltinToolError } from "../../errors/index.js";
import { fileTools } from "./files.js";
import { searchDocsTool, type DocumentSource, type SearchDocsOptions } from "./search-docs.js";

export { calculatorTool } from "./calculator.js";
export { parseExpression, evaluateExpression } from "./expression.js";
export { fileTools, type FileTools } from "./files.js";
export { searchDocsTool, type SearchDocsOptions } from "./search-docs.js";
export { Bm25Index, tokenize, roundScore } from "../../retrieval/index.js";
export { globToRegExp, globBase } from "../../patterns/index.js";
export { ExpressionError, WorkspaceEscapeError, FileToolError, BuiltinToolError } from "../../errors/index.js";

export const builtinToolNames = ["calculator", "read_file", "list_dir", "write_file", "search_docs"] as const;
export type BuiltinToolName = (typeof builtinToolNames)[number];

export interface BuiltinToolOptions {
  /** Folder for read_file, list_dir and write_file. */
  workspace?: string;
  /** Files, globs or inline documents for search_docs. */
  documents?: readonly DocumentSource[];
  /** Where search_docs resolves relative document paths. */
  baseDir?: string;
  /** Chunking, BM25 settings and filters for search_docs, or the agent's shared retriever. */
  search?: Omit<SearchDocsOptions, "documents" | "baseDir">;
  maxReadBytes?: number;
}

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (builtinToolNames as readonly string[]).includes(name);
}

/** The built-in tool called `name`, e.g. for a config that lists tools by name. */
export function createBuiltinTool(name: string, options: BuiltinToolOptions = {}): AnyTool {
  if (!isBuiltinToolName(name)) throw unknownTool(name);
  switch (name) {
    case "calculator":
      return calculatorTool();
    case "search_docs": {
      if (options.documents === undefined) throw new BuiltinToolError("tool_config", 'search_docs needs "documents": the files it searches');
      return searchDocsTool({ ...options.search, documents: options.documents, ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}) });
    }
    case "read_file":
    case "list_dir":
    case "write_file": {
      if (options.workspace === undefined) throw new BuiltinToolError("tool_config", `${name} needs "workspace": the folder it may touch`);
      const tools = fileTools({ workspace: options.workspace, ...(options.maxReadBytes !== undefined ? { maxReadBytes: options.maxReadBytes } : {}) });
      return tools.find((tool) => tool.name === name)!;
    }
  }
}

function unknownTool(name: string): BuiltinToolError {
  const suggestion = nearest(name, builtinToolNames);
  const hint = suggestion ? `; did you mean "${suggestion}"?` : "";
  return new BuiltinToolError("tool_unknown", `unknown built-in tool "${name}"${hint} (built-in tools: ${builtinToolNames.join(", ")})`);
}
