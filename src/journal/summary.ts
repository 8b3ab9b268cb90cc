import type { RunEvent, RunSummary } from "../contracts/index.js";
import { emptyUsage } from "../contracts/index.js";
import { fold, type RunState } from "./fold.js";

/**
 * The events a listing row depends on. `fold` over just these gives the same row as over the
 * whole log, which is what lets the SQLite store list runs without reading every event.
 */
export const SUMMARY_EVENT_TYPES: ReadonlySet<RunEvent["type"]> = new Set([
  "run.started",
  "message",
  "run.paused",
  "run.resumed",
  "run.finished",
]);

/** A run's listing row: a projection of `fold`'s state, like the run view. Undefined before run.started. */
export function summaryOf(state: RunState): RunSummary | undefined {
  if (!state.started || state.runId === undefined) return undefined;
  const finished = state.lastFinished;
  return {
    runId: state.runId,
    agent: state.agentName ?? "",
    status: state.status === "new" ? "running" : state.status,
    startedAt: state.started.at,
    updatedAt: state.lastAt ?? state.started.at,
    events: state.lastSeq,
    steps: finished?.steps ?? 0,
    usage: finished?.usage ?? emptyUsage(),
    cost: finished ? finished.cost : 0,
    output: finished?.output ?? "",
    parentRunId: state.started.parent?.runId,
  };
}

/** A run's listing row from its events (the whole log, or its lifecycle events), in seq order. */
export function summarize(events: readonly RunEvent[]): RunSummary | undefined {
  return summaryOf(fold(events.filter((event) => SUMMARY_EVENT_TYPES.has(event.type))));
}
