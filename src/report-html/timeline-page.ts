import { createRedactor } from "../redaction/index.js";
import { barChart } from "./charts.js";
import { escapeHtml } from "./escape.js";
import { htmlPage } from "./page.js";
import { TIMELINE_SCRIPT } from "./timeline-client.js";
import { buildTimeline, stepSeries, type TimelineRun, type TimelineRunInput } from "./timeline-model.js";
import type { VerdictView } from "./verdict.js";

export interface TimelinePageInput {
  run: TimelineRunInput;
  verdict?: VerdictView;
  /** Where the run came from, for the header: a store path, a bundle file. */
  source?: string;
  /** Known secret values (API keys) to scrub, on top of the credential patterns. */
  secrets?: readonly string[];
}

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const card = (label: string, value: string, status?: string) =>
  `<li class="card${status ? ` s-${status}` : ""}"><span class="value">${escapeHtml(value)}</span><span class="label">${escapeHtml(label)}</span></li>`;

function shown(value: unknown): string {
  if (value === undefined) return "(absent)";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 1) ?? String(value);
  } catch {
    return String(value);
  }
}

/** At most this many characters of one side of a diff in the banner; the row holds the rest. */
const DIFF_TEXT = 2000;
const clipped = (text: string) => (text.length > DIFF_TEXT ? `${text.slice(0, DIFF_TEXT)}… (${text.length} characters)` : text);

function verdictBanner(verdict: VerdictView | undefined): string {
  if (!verdict) return "";
  const d = verdict.divergence;
  const words = d?.diff.some((item) => item.words !== undefined) ?? false;
  const diff = d?.diff.length
    ? `<table><caption class="visually-hidden">Request diff</caption><thead><tr><th scope="col">Path</th>${words ? '<th scope="col">What changed</th>' : ""}<th scope="col">Recorded</th><th scope="col">Replayed</th></tr></thead><tbody>${d.diff
        .map(
          (item) =>
            `<tr><td class="mono">${escapeHtml(item.path || "(whole value)")}</td>${words ? `<td><pre>${escapeHtml(clipped(item.words ?? ""))}</pre></td>` : ""}<td><pre>${escapeHtml(clipped(shown(item.recorded)))}</pre></td><td><pre>${escapeHtml(clipped(shown(item.replayed)))}</pre></td></tr>`,
        )
        .join("")}</tbody></table>`
    : "";
  return `<section class="banner s-${verdict.status}" aria-labelledby="verdict-title"><h2 id="verdict-title">Replay: <span class="badge s-${verdict.status}">${verdict.status}</span></h2>
<p>${escapeHtml(verdict.summary)}</p>${
    d ? `<p>First divergent event: seq ${d.seq}${d.runId ? ` of run ${escapeHtml(d.runId)}` : ""} — ${escapeHtml(d.reason)}. <a id="go-divergence" href="#timeline">Go to the divergent event</a></p>${diff}` : ""
  }</section>`;
}

function charts(run: TimelineRun): string {
  const series = stepSeries(run);
  if (series.labels.length < 2) return "";
  return `<section aria-labelledby="charts-title" class="charts"><h2 id="charts-title">Per step</h2>${barChart({
    title: "Duration per model call (ms)",
    labels: series.labels,
    values: series.durations,
    format: (value) => `${Math.round(value)} ms`,
    flagged: series.failed,
  })}${barChart({ title: "Tokens per model call (in + out)", labels: series.labels, values: series.tokens, format: (value) => String(Math.round(value)) })}</section>`;
}

/**
 * A run as one self-contained timeline page: turns, model calls with their requests and
 * responses, tool calls with everything that happened to them, child runs nested under the
 * call that started them, and a replay verdict with its divergent event marked. Pure: events
 * in, page out; secrets are scrubbed from all of it first.
 */
export function renderTimelineHtml(input: TimelinePageInput): string {
  const redactor = createRedactor({ secrets: input.secrets ?? [] });
  const model = redactor.value(buildTimeline(input.run));
  const verdict = input.verdict ? redactor.value(input.verdict) : undefined;
  const source = input.source === undefined ? undefined : redactor.text(input.source);
  const root = model.runs[0] as TimelineRun;
  const tokens = root.usage.inputTokens + root.usage.outputTokens;
  const cards = [
    card("status", root.status, root.status),
    card("events", String(root.events)),
    card("turns", String(root.rows.filter((row) => row.k === "turn").length)),
    card("steps", String(root.steps)),
    card("tool calls", String(root.rows.filter((row) => row.k === "tool").length)),
    card("tokens", `${root.usage.unknownCalls ? "≥" : ""}${tokens}`),
    card("cost", root.cost === null ? "unknown" : `$${root.cost.toFixed(6)}`),
    card("duration", seconds(root.durationMs)),
    ...(model.runs.length > 1 ? [card("child runs", String(model.runs.length - 1))] : []),
  ].join("");
  const body = `<header>
<h1>Run ${escapeHtml(root.runId)}</h1>
<p class="muted">agent ${escapeHtml(root.agent || "?")} · ${escapeHtml(root.model || "?")} · started ${escapeHtml(root.startedAt)}${root.parent ? ` · child of ${escapeHtml(root.parent.runId)} (${escapeHtml(root.parent.callId)})` : ""}${source ? ` · from ${escapeHtml(source)}` : ""}</p>
<ul class="cards" aria-label="Summary">${cards}</ul>
${root.error ? `<p class="banner s-failed">${escapeHtml(`${root.error.code}: ${root.error.message}`)}</p>` : ""}
</header>
<main>
${verdictBanner(verdict)}
<section id="problems" aria-labelledby="problems-title"></section>
${charts(root)}
<section aria-labelledby="timeline-title"><h2 id="timeline-title">Timeline</h2>
<noscript><p>The timeline needs JavaScript; the run's data is in the script element with id retrace-data.</p></noscript>
<div id="timeline"></div>
</section>
</main>`;
  return htmlPage({
    title: `Run ${root.runId} (${root.status})`,
    body,
    data: { kind: "retrace-timeline-page", model, ...(verdict ? { verdict } : {}) },
    script: TIMELINE_SCRIPT,
  });
}
