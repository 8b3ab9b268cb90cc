export { ScriptedModel } from "./scripted/index.js";
export { createModel, type ModelSettings } from "./factory.js";
