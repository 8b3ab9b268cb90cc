/**
 * HTML pages for people: the eval report and a run's timeline, each one self-contained file
 * (styles, script and data inline; no request of any kind). Pure: data in, a string out; the
 * CLI reads stores and writes files.
 */
export { renderReportHtml, type ReportPageOptions } from "./report-page.js";
export { renderTimelineHtml, type TimelinePageInput } from "./timeline-page.js";
export { buildTimeline, type TimelineModel, type TimelineRun, type TimelineRunInput, type TimelineRow } from "./timeline-model.js";
export type { VerdictView, DivergenceView } from "./verdict.js";
export { escapeHtml, embedJson } from "./escape.js";
