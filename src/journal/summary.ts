import type { RunEvent, RunSummary } from "../contracts/index.js";
import { emptyUsage } from "../contracts/index.js";

/** Folds one lifecycle event into a listing row; other events change nothing a listing shows. */
export function updateSummary(summary: RunSummary | undefined, event: RunEvent): RunSummary | undefined {
  if (event.type === "run.started") {
    return {
      runId: event.runId,
      agent: event.agent.name,
      status: "running",
      startedAt: event.at,
      updatedAt: event.at,
      events: event.seq,
      steps: 0,
      usage: emptyUsage(),
      cost: 0,
      output: "",
      parentRunId: event.parent?.runId,
    };
  }
  if (!summary) return undefined;
  const next: RunSummary = { ...summary, updatedAt: event.at, events: event.seq };
  switch (event.type) {
    case "message":
    case "run.resumed":
      return { ...next, status: "running" };
    case "run.paused":
      return { ...next, status: "waiting" };
    case "run.finished":
      return { ...next, status: event.status, output: event.output, usage: event.usage, cost: event.cost, steps: event.steps };
    default:
      return next;
  }
}

export const SUMMARY_EVENT_TYPES: ReadonlySet<RunEvent["type"]> = new Set([
  "run.started",
  "message",
  "run.paused",
  "run.resumed",
  "run.finished",
]);

/** A run's listing row from its lifecycle events (others are ignored), in seq order. */
export function summarize(events: readonly RunEvent[]): RunSummary | undefined {
  let summary: RunSummary | undefined;
  for (const event of events) if (SUMMARY_EVENT_TYPES.has(event.type)) summary = updateSummary(summary, event);
  return summary;
}
