/**
 * `retrace merge-reports`: joins the JSON reports of the shards of one run into the report the
 * whole run would have written. Shards must agree on the mode and must not overlap.
 */
import { ReportFormatError } from "../../errors/index.js";
import type { EvalReport, FileResult } from "./schema.js";
import { summarise } from "./summary.js";

export function mergeReports(reports: readonly { file: string; report: EvalReport }[]): EvalReport {
  const first = reports[0];
  if (!first) throw new ReportFormatError("no reports to merge");
  const cases = new Map<string, { from: string; result: EvalReport["cases"][number] }>();
  const files = new Map<string, FileResult>();
  const errors = new Map<string, { code: string; message: string }>();
  let durationMs = 0;
  for (const { file, report } of reports) {
    if (report.mode !== first.report.mode) {
      throw new ReportFormatError(`${file} is a --${report.mode} report and ${first.file} a --${first.report.mode} one; merge reports of one run`, { file });
    }
    for (const result of report.cases) {
      const earlier = cases.get(result.id);
      if (earlier) throw new ReportFormatError(`case "${result.id}" is in both ${earlier.from} and ${file}; were the shards run with the same --shard count?`, { file });
      cases.set(result.id, { from: file, result });
    }
    for (const entry of report.files) {
      const known = files.get(entry.file);
      // Every shard loads every file, so the same file appears in each; its error counts once.
      files.set(entry.file, known ? { ...known, cases: Math.max(known.cases, entry.cases) } : entry);
    }
    for (const error of report.errors) errors.set(`${error.code}:${error.message}`, error);
    // Shards run side by side: the merged run took as long as the slowest shard.
    durationMs = Math.max(durationMs, report.summary.durationMs);
  }
  const ordered = [...cases.values()].map((entry) => entry.result).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const fileList = [...files.values()].sort((a, b) => (a.file < b.file ? -1 : 1));
  const errorList = [...errors.values()];
  return {
    ...first.report,
    options: { ...first.report.options, shard: null },
    summary: summarise(ordered, fileList, errorList, durationMs),
    errors: errorList,
    files: fileList,
    cases: ordered,
    mergedFrom: reports.map((entry) => entry.file),
  };
}
