/**
 * Derives the run view (the contract in contracts/run-view.ts) from the events alone, so the same
 * log always gives the same view, and nothing here reads the model's prose to decide what the
 * agent did.
 */
import type { EventOf, RunEvent, GuardrailView, RetrievalView, RunView, ToolCallView, TurnView } from "../contracts/index.js";
import { addUsage, emptyUsage, type Usage } from "../contracts/index.js";

export function viewRun(events: readonly RunEvent[]): RunView {
  const calls = new Map<string, ToolCallView>();
  const turns: TurnView[] = [];
  const retrievals: RetrievalView[] = [];
  const guardrails: GuardrailView[] = [];
  let usage = emptyUsage();
  let cost: number | null = 0;
  let steps = 0;
  let llmCalls = 0;
  let turnSteps = 0;
  const current = (): TurnView | undefined => turns[turns.length - 1];
  for (const event of events) {
    switch (event.type) {
      case "message":
        turnSteps = 0;
        turns.push({ index: turns.length + 1, input: event.content, status: "running", output: "", error: undefined, steps: 0 });
        break;
      case "llm.finished": {
        steps++;
        llmCalls++;
        turnSteps++;
        usage = addUsage(usage, event.response.usage);
        cost = cost === null || event.cost === null ? null : cost + event.cost;
        const turn = current();
        if (turn) turn.steps = turnSteps;
        break;
      }
      case "llm.failed":
        llmCalls++;
        break;
      case "tool.requested":
        calls.set(event.callId, {
          callId: event.callId,
          name: event.name,
          args: event.args,
          rawArgs: event.rawArgs,
          step: event.step,
          turn: Math.max(1, turns.length),
          status: "pending",
          result: undefined,
          error: undefined,
          blocked: undefined,
        });
        break;
      case "tool.finished":
        settle(calls, event, { status: "finished", result: event.result });
        break;
      case "tool.failed":
        settle(calls, event, { status: "failed", error: event.error });
        break;
      case "tool.blocked":
        settle(calls, event, { status: "blocked", blocked: { reason: event.reason, detail: event.detail } });
        break;
      case "tool.unknown_outcome":
        settle(calls, event, { status: "unknown_outcome" });
        break;
      case "retrieval":
        retrievals.push({ callId: event.callId, tool: event.tool, query: event.query, chunks: event.chunks });
        break;
      case "guardrail": {
        const { v: _v, runId: _runId, at: _at, type: _type, ...rest } = event;
        guardrails.push(rest);
        break;
      }
      case "run.paused": {
        const turn = current();
        if (turn) turn.status = "waiting";
        break;
      }
      case "run.resumed": {
        const turn = current();
        if (turn) turn.status = "running";
        break;
      }
      case "run.finished": {
        const turn = current();
        if (turn) {
          turn.status = event.status;
          turn.output = event.output;
          turn.error = event.error;
        }
        break;
      }
      default:
        break;
    }
  }
  const last = current();
  return {
    runId: events[0]?.runId,
    events,
    toolCalls: [...calls.values()],
    turns,
    output: last?.output ?? "",
    status: last?.status ?? "new",
    error: last?.error,
    usage,
    steps,
    llmCalls,
    cost,
    retrievals,
    guardrails,
  };
}

function settle(calls: Map<string, ToolCallView>, event: { callId: string; name: string }, change: Partial<ToolCallView>): void {
  const call = calls.get(event.callId);
  // A settle without a request can only come from a hand-built log; keep it visible rather than drop it.
  if (!call) {
    calls.set(event.callId, {
      callId: event.callId,
      name: event.name,
      args: undefined,
      rawArgs: undefined,
      step: 0,
      turn: 0,
      status: "pending",
      result: undefined,
      error: undefined,
      blocked: undefined,
      ...change,
    });
    return;
  }
  Object.assign(call, change);
}

/** Calls that ran to completion: the only ones that count as "called". */
export function finishedCalls(view: RunView, name?: string): ToolCallView[] {
  return view.toolCalls.filter((call) => call.status === "finished" && (name === undefined || call.name === name));
}
