/**
 * Derives the run view (the contract in contracts/run-view.ts) from the events alone, so the same
 * log always gives the same view, and nothing here reads the model's prose to decide what the
 * agent did. The view is a projection of `fold`'s state, not a second reducer: what the
 * assertions read and what resume acts on are one reduction of one log.
 */
import type { RunEvent, RunView, ToolCallView } from "../contracts/index.js";
import { fold, type RunState } from "./fold.js";

export function viewRun(events: readonly RunEvent[]): RunView {
  return projectView(fold(events), events);
}

/** The run view of a folded state; `events` are the events that state was folded from. */
export function projectView(state: RunState, events: readonly RunEvent[]): RunView {
  const last = state.turnViews[state.turnViews.length - 1];
  return {
    runId: state.runId,
    events,
    toolCalls: state.toolCalls,
    turns: state.turnViews,
    output: last?.output ?? "",
    status: last?.status ?? "new",
    error: last?.error,
    usage: state.usage,
    steps: state.steps,
    llmCalls: state.llmCalls,
    cost: state.cost,
    retrievals: state.retrievals,
    guardrails: state.guardrails,
  };
}

/** Calls that ran to completion: the only ones that count as "called". */
export function finishedCalls(view: RunView, name?: string): ToolCallView[] {
  return view.toolCalls.filter((call) => call.status === "finished" && (name === undefined || call.name === name));
}
