/**
 * The effects around the HTML pages (src/report-html is pure): reading a run and its children
 * from a store, writing the report with a timeline page per case run beside it, and the keys
 * to scrub from whatever is written.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { childRunId } from "../agent/sub-agent.js";
import type { RunStore } from "../contracts/index.js";
import type { EvalReport } from "../eval/report/schema.js";
import { PROVIDER_KEY_VARIABLES } from "../redaction/index.js";
import { renderReportHtml, renderTimelineHtml, type TimelineRunInput } from "../report-html/index.js";
import { openStore } from "./store.js";

/** The provider keys in the environment: scrubbed from every page, whatever a run recorded. */
export function pageSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return PROVIDER_KEY_VARIABLES.flatMap((name) => (env[name] ? [env[name]] : []));
}

/**
 * A run with the runs its sub-agent calls started, read from the store. A child's id is derived
 * from its parent's and the call's (childRunId), so the log itself says where to look.
 */
export function readRunTree(store: RunStore, runId: string, depth = 0): TimelineRunInput {
  const events = store.read(runId);
  const children: TimelineRunInput[] = [];
  // Deep nesting is a loop of sub-agents, not a run anyone reads: stop well before the stack does.
  if (depth < 32) {
    for (const event of events) {
      if (event.type !== "tool.requested") continue;
      const childId = childRunId(runId, event.callId);
      if (store.lastSeq(childId) > 0) children.push(readRunTree(store, childId, depth + 1));
    }
  }
  return { events, children };
}

/** A run id as a file name: anything but letters, digits, dot, dash and underscore becomes "_". */
export const runFileName = (runId: string): string => `${runId.replace(/[^A-Za-z0-9._-]/g, "_")}.html`;

/**
 * Writes the report page to `file` and, when the report's run store is there, one timeline
 * page per case run (and judge run) in `<name>.runs/` beside it, linked from the report, so the
 * pages work as a folder copied anywhere. Without a store the report shows the command instead.
 */
export function writeHtmlReport(
  report: EvalReport,
  file: string,
  context: { cwd: string; env: Readonly<Record<string, string | undefined>>; runs?: RunStore | undefined },
): void {
  const secrets = pageSecrets(context.env);
  const timelines: Record<string, string> = {};
  mkdirSync(dirname(file), { recursive: true });
  const storePath = report.runStore ? resolve(context.cwd, report.runStore) : undefined;
  // The runs the command kept in memory for these pages, else the report's run store on disk.
  const opened = context.runs ? undefined : storePath && existsSync(storePath) ? openStore(context.cwd, report.runStore ?? undefined, undefined, { mustExist: true }) : undefined;
  const store = context.runs ?? opened;
  if (store) {
    const folderName = `${basename(file, extname(file))}.runs`;
    const folder = join(dirname(file), folderName);
    try {
      const runIds = new Set(report.cases.flatMap((c) => c.attempts.flatMap((a) => [...(a.runId ? [a.runId] : []), ...a.judgeRuns])));
      for (const runId of runIds) {
        if (store.lastSeq(runId) === 0) continue;
        mkdirSync(folder, { recursive: true });
        const name = runFileName(runId);
        writeFileSync(join(folder, name), renderTimelineHtml({ run: readRunTree(store, runId), source: report.runStore ?? undefined, secrets }));
        timelines[runId] = `${encodeURIComponent(folderName)}/${encodeURIComponent(name)}`;
      }
    } finally {
      opened?.close();
    }
  }
  writeFileSync(file, renderReportHtml(report, { timelines, secrets }));
}
