/** Run-level replay: the agent runs again on its recording, and its new log is compared with the old one. */
export { replayBundle, type ReplayOptions, type ReplayVerdict, type RequestDiff } from "./replay.js";
export { structuralDiff, wordDiff, describeChanges, type Change } from "./diff.js";
export { replayModel, ReplayDivergedError, type RequestDivergence } from "./model.js";
export { replayClock } from "./clock.js";
export { familyLog, outcomeOf, type OutcomeSummary, type EventDivergence } from "./compare.js";
