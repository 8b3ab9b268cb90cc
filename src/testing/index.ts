/** Test doubles and helpers, kept out of the main entry. */
export { ScriptedModel, type Script, type ScriptInput } from "../providers/scripted/index.js";
export { MemoryRunStore } from "../journal/index.js";
export { manualClock, sequentialIds, createRunContext } from "../context/index.js";
