import type { EventOf, RunEvent } from "../contracts/index.js";
import type { LogPayload } from "../store/index.js";

export interface RecordedAttempt {
  started: EventOf<"llm.started">;
  outcome: EventOf<"llm.finished"> | EventOf<"llm.failed"> | undefined;
}

export interface RecordedCall {
  name: string;
  retrievals: EventOf<"retrieval">[];
  outcome: EventOf<"tool.finished"> | EventOf<"tool.failed"> | undefined;
}

export interface RecordedRun {
  runId: string;
  events: readonly RunEvent[];
  lines: readonly string[];
  /** Model attempts in the order the run made them (its callIndex), interrupted ones left out. */
  attempts: RecordedAttempt[];
  calls: Map<string, RecordedCall>;
  /** Decisions an approver took while the run was being driven, by call id, in order. */
  decisions: Map<string, (EventOf<"approval.granted"> | EventOf<"approval.denied">)[]>;
  /** What arrived from outside while the run was paused (`retrace approve`), one batch per pause. */
  pausedBatches: LogPayload[][];
  /** The `at` of every event, epoch ms: what the run's clock returned, read for read. */
  times: number[];
}

/** Everything a replay serves, read from a run's recorded log. */
export function readRecording(runId: string, events: readonly RunEvent[], lines: readonly string[]): RecordedRun {
  const run: RecordedRun = { runId, events, lines, attempts: [], calls: new Map(), decisions: new Map(), pausedBatches: [], times: [] };
  const attempts = new Map<string, RecordedAttempt>();
  let paused: LogPayload[] | undefined;
  for (const event of events) {
    run.times.push(Date.parse(event.at));
    if (event.type === "run.paused") {
      paused = [];
      run.pausedBatches.push(paused);
      continue;
    }
    if (event.type === "run.resumed") {
      paused = undefined;
      continue;
    }
    if (paused) {
      const { v: _v, runId: _runId, seq: _seq, at: _at, ...payload } = event;
      paused.push(payload as LogPayload);
      continue;
    }
    switch (event.type) {
      case "llm.started": {
        const attempt = { started: event, outcome: undefined };
        attempts.set(`${event.step}/${event.attempt}`, attempt);
        run.attempts.push(attempt);
        break;
      }
      // Asked again as the next attempt, with the same call index: it is no call of its own.
      case "llm.interrupted": {
        const attempt = attempts.get(`${event.step}/${event.attempt}`);
        if (attempt) run.attempts.splice(run.attempts.lastIndexOf(attempt), 1);
        break;
      }
      case "llm.finished":
      case "llm.failed": {
        const attempt = attempts.get(`${event.step}/${event.attempt}`);
        if (attempt) attempt.outcome = event;
        break;
      }
      case "tool.requested":
        run.calls.set(event.callId, { name: event.name, retrievals: [], outcome: undefined });
        break;
      case "retrieval":
        // Augment retrievals (no call) are made again from the bundled documents.
        if (event.callId !== undefined) run.calls.get(event.callId)?.retrievals.push(event);
        break;
      case "tool.finished":
      case "tool.failed": {
        const call = run.calls.get(event.callId);
        if (call) call.outcome = event;
        break;
      }
      case "approval.granted":
      case "approval.denied": {
        const list = run.decisions.get(event.callId) ?? [];
        list.push(event);
        run.decisions.set(event.callId, list);
        break;
      }
      default:
        break;
    }
  }
  return run;
}
