import type { EvalReport } from "../eval/report/schema.js";
import { createRedactor } from "../redaction/index.js";
import { barChart } from "./charts.js";
import { escapeHtml } from "./escape.js";
import { htmlPage } from "./page.js";
import { REPORT_SCRIPT } from "./report-client.js";

export interface ReportPageOptions {
  /** Where each case run's timeline page is, relative to the report (see `retrace view`); runs without one show the command that makes it. */
  timelines?: Readonly<Record<string, string>>;
  /** Known secret values (API keys) to scrub, on top of the credential patterns. */
  secrets?: readonly string[];
}

const card = (label: string, value: string, status?: string) =>
  `<li class="card${status ? ` s-${status}` : ""}"><span class="value">${escapeHtml(value)}</span><span class="label">${escapeHtml(label)}</span></li>`;

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

function options(values: readonly string[], all: string): string {
  return [`<option value="">${escapeHtml(all)}</option>`, ...values.map((value) => `<option value="${escapeHtml(value)}">${escapeHtml(value)}</option>`)].join("");
}

function comparison(report: EvalReport): string {
  const c = report.comparison;
  if (!c) return "";
  const list = (title: string, ids: readonly string[]) =>
    ids.length ? `<h3>${escapeHtml(title)} (${ids.length})</h3><ul>${ids.map((id) => `<li>${escapeHtml(id)}</li>`).join("")}</ul>` : "";
  return `<section aria-labelledby="cmp"><h2 id="cmp">Compared with ${escapeHtml(c.baseline)}</h2>${
    list("Regressions", c.regressions.map((x) => `${x.id}: ${x.before} → ${x.after}`)) +
    list("Fixed", c.fixed.map((x) => `${x.id}: ${x.before} → ${x.after}`)) +
    list("Added", c.added) +
    list("Removed", c.removed) +
    list("Score changes", c.scoreChanges.map((x) => `${x.id}: ${x.before ?? "—"} → ${x.after ?? "—"} (${x.delta >= 0 ? "+" : ""}${x.delta.toFixed(2)})`))
  }${c.regressions.length + c.fixed.length + c.added.length + c.removed.length + c.scoreChanges.length === 0 ? "<p>No changes.</p>" : ""}</section>`;
}

/**
 * The eval report as one self-contained HTML page: the summary and the score chart drawn
 * here, the cases drawn in the browser from the embedded report (so filters need no server).
 * Pure: the report in, the page out; secrets are scrubbed from all of it first.
 */
export function renderReportHtml(input: EvalReport, settings: ReportPageOptions = {}): string {
  const report = createRedactor({ secrets: settings.secrets ?? [] }).value(input);
  const s = report.summary;
  const verdict = s.exitCode === 0 ? "passed" : s.exitCode === 1 ? "failed" : "error";
  const tags = [...new Set(report.cases.flatMap((c) => c.tags))].sort();
  const files = [...new Set([...report.files.map((f) => f.file), ...report.cases.map((c) => c.file)])].sort();
  const problems = [
    ...report.errors.map((e) => `${e.code}: ${e.message}`),
    ...report.files.flatMap((f) => (f.error ? [`${f.file}: ${f.error.message}`] : [])),
  ];
  const cards = [
    card("cases", String(s.cases)),
    card("passed", String(s.passed), "passed"),
    card("failed", String(s.failed), s.failed ? "failed" : undefined),
    card("errors", String(s.errors), s.errors ? "error" : undefined),
    card("skipped", String(s.skipped)),
    ...(s.flaky ? [card("flaky", String(s.flaky), "waiting")] : []),
    ...(s.fileErrors ? [card("files not loaded", String(s.fileErrors), "error")] : []),
    card(`score${s.scoredCases !== undefined ? ` (mean of ${s.scoredCases} scored)` : ""}`, s.score === null ? "—" : s.score.toFixed(2)),
    card("duration", seconds(s.durationMs)),
    card("mode", report.mode),
  ].join("");
  const chart =
    report.cases.length > 0
      ? barChart({
          title: "Score per case",
          labels: report.cases.map((c) => c.id),
          values: report.cases.map((c) => c.score),
          max: 1,
          format: (value) => value.toFixed(2),
          flagged: report.cases.map((c) => c.status !== "passed"),
        })
      : "";
  const body = `<header>
<h1>Eval report <span class="badge s-${verdict}">${verdict}</span></h1>
<p class="muted">Retrace ${escapeHtml(report.retrace)} · exit code ${s.exitCode}${report.options.shard ? ` · shard ${report.options.shard.index}/${report.options.shard.count}` : ""}${report.options.repeat > 1 ? ` · repeat ${report.options.repeat}` : ""}${report.mergedFrom ? ` · merged from ${report.mergedFrom.length} report(s)` : ""}</p>
<ul class="cards" aria-label="Summary">${cards}</ul>
</header>
<main>
${problems.length ? `<section aria-labelledby="problems" class="banner s-failed"><h2 id="problems">Could not load</h2><ul>${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul></section>` : ""}
${comparison(report)}
${chart ? `<section aria-labelledby="chart-title"><h2 id="chart-title">Scores</h2>${chart}</section>` : ""}
<section aria-labelledby="cases-title">
<h2 id="cases-title">Cases</h2>
<div class="controls" role="search" aria-label="Filter cases">
<label>Status<select id="f-status"><option value="">all</option><option value="passed">passed</option><option value="failed">failed</option><option value="error">error</option><option value="skipped">skipped</option><option value="not-passed">not passed</option><option value="flaky">flaky</option></select></label>
<label>Tag<select id="f-tag">${options(tags, "all")}</select></label>
<label>File<select id="f-file">${options(files, "all")}</select></label>
<label>Text<input id="f-text" type="search" placeholder="name, reason, error…"></label>
</div>
<p><span id="shown" aria-live="polite">${report.cases.length} case(s)</span> <span id="filtered-by" class="muted"></span></p>
<noscript><p>The case list needs JavaScript; the report's data is in the script element with id retrace-data.</p></noscript>
<div id="cases"></div>
</section>
</main>`;
  return htmlPage({
    title: `Eval report: ${s.passed} passed, ${s.failed} failed`,
    body,
    data: { kind: "retrace-eval-report-page", report, links: settings.timelines ?? {} },
    script: REPORT_SCRIPT,
  });
}
