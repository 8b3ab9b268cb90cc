export { ScriptedModel } from "./scripted-model.js";
