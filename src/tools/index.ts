export { defineTool, isTool, toolSpec, toolSpecs, type Tool, type AnyTool, type ToolContext, type ToolDefinition, type ToolGovernance, type Risk } from "./define.js";
