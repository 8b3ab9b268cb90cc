/** Test doubles and helpers, kept out of the main entry. */
export { ScriptedModel } from "../providers/scripted/index.js";
export type { Script, ScriptInput } from "../contracts/index.js";
export { MemoryRunStore } from "../store/index.js";
export { manualClock, sequentialIds, createRunContext } from "../context/index.js";
