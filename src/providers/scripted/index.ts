export { ScriptedModel, type UnusedResponse } from "./scripted-model.js";
