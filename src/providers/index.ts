export * from "./model.js";
export { requestKey } from "./request-key.js";
export { ScriptedModel, ScriptSchema, type Script, type ScriptInput } from "./scripted/index.js";
export { createModel, type ModelSettings } from "./factory.js";
