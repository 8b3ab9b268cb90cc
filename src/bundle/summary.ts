import type { RunEvent } from "../contracts/index.js";
import { fold } from "../journal/index.js";
import type { Bundle } from "./load.js";

export interface RunInspection {
  runId: string;
  parent?: { runId: string; callId: string };
  agent: string;
  status: string;
  model: { provider: string; model: string };
  turns: number;
  steps: number;
  tools: { called: string[]; blocked: { name: string; reason: string }[]; failed: { name: string; kind: string }[] };
  approvals: { requested: number; granted: number; denied: number; expired: number };
  usage: { inputTokens: number; outputTokens: number };
  cost: number | null;
  durationMs: number;
  output: string;
}

export interface BundleInspection {
  runId: string;
  format: number;
  retrace: string;
  createdAt: string;
  size: number;
  logSha256: string;
  /** Every checksum was verified on load; a bundle that fails one never gets this far. */
  checksums: "ok";
  entries: { name: string; size: number }[];
  cassette: boolean;
  runs: RunInspection[];
}

function inspectRun(events: readonly RunEvent[]): Omit<RunInspection, "runId" | "parent"> {
  const state = fold(events);
  const started = events[0];
  const called: string[] = [];
  const blocked: RunInspection["tools"]["blocked"] = [];
  const failed: RunInspection["tools"]["failed"] = [];
  const approvals = { requested: 0, granted: 0, denied: 0, expired: 0 };
  let turns = 0;
  for (const event of events) {
    if (event.type === "tool.requested") called.push(event.name);
    else if (event.type === "tool.blocked") blocked.push({ name: event.name, reason: event.reason });
    else if (event.type === "tool.failed") failed.push({ name: event.name, kind: event.error.kind });
    else if (event.type === "approval.requested") approvals.requested++;
    else if (event.type === "approval.granted") approvals.granted++;
    else if (event.type === "approval.denied") approvals.denied++;
    else if (event.type === "approval.expired") approvals.expired++;
    else if (event.type === "message") turns++;
  }
  const first = started ? Date.parse(started.at) : 0;
  const last = events.length ? Date.parse((events.at(-1) as RunEvent).at) : 0;
  return {
    agent: started?.type === "run.started" ? started.agent.name : "",
    status: state.status,
    model: started?.type === "run.started" ? { provider: started.model.provider, model: started.model.model } : { provider: "", model: "" },
    turns,
    steps: state.steps,
    tools: { called, blocked, failed },
    approvals,
    usage: { inputTokens: state.usage.inputTokens, outputTokens: state.usage.outputTokens },
    cost: state.cost,
    durationMs: Math.max(0, last - first),
    output: state.output,
  };
}

/** What `retrace inspect` shows: the run and its child runs, summarised from their logs. */
export function inspectBundle(bundle: Bundle): BundleInspection {
  return {
    runId: bundle.manifest.runId,
    format: bundle.manifest.version,
    retrace: bundle.manifest.retrace,
    createdAt: bundle.manifest.createdAt,
    size: bundle.size,
    logSha256: bundle.logSha256,
    checksums: "ok",
    entries: Object.entries(bundle.manifest.entries).map(([name, info]) => ({ name, size: info.size })),
    cassette: bundle.manifest.cassette,
    runs: bundle.runs.map((run) => ({ runId: run.runId, ...(run.parent ? { parent: run.parent } : {}), ...inspectRun(run.events) })),
  };
}
