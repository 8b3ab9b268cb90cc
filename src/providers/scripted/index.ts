export { ScriptedModel } from "./scripted-model.js";
export { ScriptSchema, ResponseEntrySchema, RuleSchema, type Script, type ScriptInput, type ResponseEntry, type Rule } from "./script.js";
