export * from "./schema.js";
export { summarise, exitCodeOf, withReportErrors } from "./summary.js";
export { compareReports, caseSelector } from "./compare.js";
export { mergeReports } from "./merge.js";
export { parseReport, readReport } from "./read.js";
