/** The run log as data: its codec, the fold into state, summaries and the run view. Pure. */
export { fold, initialState, toolResultContent, UNKNOWN_OUTCOME_SKIPPED, type RunState, type PendingCall, type PendingApproval } from "./fold.js";
export { parseEvent, serializeEvent, checkStoredBody, checkStoredBodies, checkEvents, encodeEvents, preparePayload, stampPayloads, type PreparedPayload, type Stamp } from "./codec.js";
export { StoredLineChecker } from "./stored-lines.js";
export { isoTime } from "./iso-time.js";
export { summarize, summaryOf, SUMMARY_EVENT_TYPES } from "./summary.js";
export { viewRun, projectView, finishedCalls } from "./run-view.js";
