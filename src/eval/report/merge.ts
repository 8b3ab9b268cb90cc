/**
 * `retrace merge-reports`: joins the JSON reports of the shards of one run into the report the
 * whole run would have written. The reports must be every shard of one run: each written with
 * `--shard i/n` for the same n, the indices 1..n once each, the same mode, and the same
 * selection and verdict options (--repeat, --threshold, --tags, -t). A missing shard would
 * otherwise pass as a smaller green run, and mixed options as one verdict.
 *
 * A shard's own baseline comparison covers only its share, so the merged report drops them;
 * `baseline` compares the merged run as a whole.
 */
import { ReportFormatError } from "../../errors/index.js";
import { caseSelector, compareReports } from "./compare.js";
import type { CaseResult, EvalReport, FileResult } from "./schema.js";
import { summarise } from "./summary.js";

export interface MergeOptions {
  /** A previous report to compare the merged run with. */
  baseline?: { file: string; report: EvalReport };
}

export function mergeReports(reports: readonly { file: string; report: EvalReport }[], options: MergeOptions = {}): EvalReport {
  const first = reports[0];
  if (!first) throw new ReportFormatError("no reports to merge");
  checkShards(reports);
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
  const { comparison: _shardComparison, ...base } = first.report;
  const merged: EvalReport = {
    ...base,
    options: { ...first.report.options, shard: null },
    summary: summarise(ordered, fileList, errorList, durationMs),
    errors: errorList,
    files: fileList,
    cases: ordered,
    mergedFrom: reports.map((entry) => entry.file),
  };
  if (options.baseline) {
    // Compared: the baseline's cases this run selected. One the run did not have is "removed"
    // only if its file was loaded (and loaded cleanly) and the run's --tags and -t select it.
    const ran = new Set(ordered.map((result) => result.id));
    const clean = new Set(fileList.filter((entry) => !entry.error).map((entry) => entry.file));
    const selects = caseSelector(merged.options);
    const inScope = (result: CaseResult): boolean => ran.has(result.id) || (clean.has(result.file) && selects(result));
    const baseline = { ...options.baseline.report, cases: options.baseline.report.cases.filter(inScope) };
    merged.comparison = compareReports(baseline, ordered, options.baseline.file);
  }
  return merged;
}

/** Every report is a shard of one run: --shard i/n with one n, each i from 1 to n once, the same options. */
function checkShards(reports: readonly { file: string; report: EvalReport }[]): void {
  const first = reports[0] as { file: string; report: EvalReport };
  const count = first.report.options.shard?.count;
  const seen = new Map<number, string>();
  for (const { file, report } of reports) {
    const shard = report.options.shard;
    if (!shard) {
      throw new ReportFormatError("not a shard's report (it was run without --shard i/n); merge-reports joins the shards of one run", { file });
    }
    if (shard.count !== count) {
      throw new ReportFormatError(`shard ${shard.index}/${shard.count}, but ${first.file} is one of ${count} shards; merge the shards of one run`, { file });
    }
    const earlier = seen.get(shard.index);
    if (earlier !== undefined) throw new ReportFormatError(`shard ${shard.index}/${shard.count} again (${earlier} is that shard too)`, { file });
    seen.set(shard.index, file);
    const differs = (["repeat", "threshold", "tags", "pattern"] as const).find(
      (key) => JSON.stringify(report.options[key]) !== JSON.stringify(first.report.options[key]),
    );
    if (differs) {
      const flag = { repeat: "--repeat", threshold: "--threshold", tags: "--tags", pattern: "-t" }[differs];
      throw new ReportFormatError(
        `run with ${flag} ${JSON.stringify(report.options[differs])}, but ${first.file} with ${JSON.stringify(first.report.options[differs])}; the shards of one run share their options`,
        { file },
      );
    }
  }
  if (count !== undefined && seen.size !== count) {
    const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !seen.has(index));
    throw new ReportFormatError(`shard${missing.length > 1 ? "s" : ""} ${missing.map((index) => `${index}/${count}`).join(", ")} missing: give every shard's report (${seen.size} of ${count} given)`);
  }
}
