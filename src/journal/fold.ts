/**
 * fold(events) → RunState: the only way Retrace learns a run's state. Pure, total on any
 * prefix of a valid log (a crash can cut a log anywhere), and deterministic.
 */
import { canonicalJson } from "../canonical/index.js";
import type { ErrorInfo, RunEvent, RunStatus, EventOf, GuardrailView, RetrievalView, ToolCallView, TurnView } from "../contracts/index.js";
import { addUsage, emptyUsage, type AssistantMessage, type Message, type Usage } from "../contracts/index.js";

export interface PendingCall {
  callId: string;
  name: string;
  step: number;
  args: unknown;
  rawArgs: string | undefined;
  /**
   * "requested": nothing ran yet; "started": the tool began and its outcome is not in the log;
   * "unknown": it started, the process stopped, and it may not run again without a person's
   * decision; "rerun": a person decided it runs again.
   */
  phase: "requested" | "started" | "unknown" | "rerun";
}

export interface PendingApproval {
  callId: string;
  tool: string;
  argsHash: string;
  roles: string[];
  granted: string[];
  deadline: number | undefined;
  denied: { role: string; reason: string } | undefined;
  expired: boolean;
}

export interface RunState {
  runId: string | undefined;
  status: RunStatus | "new";
  agentName: string | undefined;
  system: string | undefined;
  /** The conversation as the next model request will see it. */
  messages: Message[];
  usage: Usage;
  /** Sum of known call costs; null as soon as one call's cost is unknown. */
  cost: number | null;
  /** Model calls that returned (one per step), over the whole run. */
  steps: number;
  /** Steps since the last user message. */
  turnSteps: number;
  /** Every model attempt, failed ones included. */
  llmCalls: number;
  /** A model call was started and has no outcome yet (a crash between the two). */
  pendingLlm: EventOf<"llm.started"> | undefined;
  pendingCalls: PendingCall[];
  pendingApprovals: PendingApproval[];
  output: string;
  error: ErrorInfo | undefined;
  /** While the run waits: what it waits on, as its last `run.paused` said. */
  waiting: Pick<EventOf<"run.paused">, "pending" | "childRunId"> | undefined;
  lastSeq: number;
  turns: number;
  /** The current step's last failed attempt, while the step has no answer: where a resume continues. */
  stepFailure: Pick<EventOf<"llm.failed">, "attempt" | "retryInMs" | "error"> | undefined;
  /** The current turn's input was blocked by an input guardrail: it ends without a model call. */
  inputBlocked: boolean;
  /** What the run view shows, kept by this same reduction so the two can never disagree. */
  turnViews: TurnView[];
  toolCalls: ToolCallView[];
  retrievals: RetrievalView[];
  guardrails: GuardrailView[];
  /** What a run listing shows, from the same reduction: the start, the parent, the latest outcome. */
  started: Pick<EventOf<"run.started">, "at" | "parent"> | undefined;
  lastFinished: Pick<EventOf<"run.finished">, "output" | "usage" | "cost" | "steps"> | undefined;
  lastAt: string | undefined;
}

export function initialState(): RunState {
  return {
    runId: undefined,
    status: "new",
    agentName: undefined,
    system: undefined,
    messages: [],
    usage: emptyUsage(),
    cost: 0,
    steps: 0,
    turnSteps: 0,
    llmCalls: 0,
    pendingLlm: undefined,
    pendingCalls: [],
    pendingApprovals: [],
    output: "",
    error: undefined,
    waiting: undefined,
    lastSeq: 0,
    turns: 0,
    stepFailure: undefined,
    inputBlocked: false,
    turnViews: [],
    toolCalls: [],
    retrievals: [],
    guardrails: [],
    started: undefined,
    lastFinished: undefined,
    lastAt: undefined,
  };
}

/**
 * Lists this fold call made itself. No state outside the call holds them (`from` and every
 * earlier state keep their own), so the call may extend them in place instead of copying a
 * growing list per event — which made folding a long log quadratic. Once fold returns, they
 * are never changed again: the next call copies before its first change.
 */
let owned: WeakSet<readonly unknown[]> | undefined;

function appended<T>(list: readonly T[], item: T): T[] {
  if (owned?.has(list)) {
    (list as T[]).push(item);
    return list as T[];
  }
  const copy = [...list, item];
  owned?.add(copy);
  return copy;
}

function replacedAt<T>(list: readonly T[], index: number, item: T): T[] {
  if (owned?.has(list)) {
    (list as T[])[index] = item;
    return list as T[];
  }
  const copy = [...list];
  copy[index] = item;
  owned?.add(copy);
  return copy;
}

export function fold(events: readonly RunEvent[], from: RunState = initialState()): RunState {
  const outer = owned;
  owned = new WeakSet();
  try {
    let state = from;
    for (const event of events) state = apply(state, event);
    return state;
  } finally {
    owned = outer;
  }
}

/** What the model is told about a call whose outcome a person chose not to find out by running it again. */
export const UNKNOWN_OUTCOME_SKIPPED =
  "Error (unknown_outcome): the call started but the process running it stopped before its outcome was recorded; it was not run again, so whether it had its effect is unknown";

/** What the model is told about a tool call's outcome; derived here so replay derives the same. */
export function toolResultContent(result: unknown): string {
  return typeof result === "string" ? result : canonicalJson(result);
}

/** The current turn's view changed; a copy, so earlier states stay as they were. */
function withTurn(state: RunState, change: Partial<TurnView>): RunState {
  const last = state.turnViews[state.turnViews.length - 1];
  if (!last) return state;
  return { ...state, turnViews: replacedAt(state.turnViews, state.turnViews.length - 1, { ...last, ...change }) };
}

function withCall(state: RunState, event: { callId: string; name: string }, change: Partial<ToolCallView>): RunState {
  const index = state.toolCalls.findIndex((call) => call.callId === event.callId);
  if (index < 0) {
    // A settle without a request can only come from a hand-built log; keep it visible rather than drop it.
    const orphan: ToolCallView = {
      callId: event.callId,
      name: event.name,
      args: undefined,
      rawArgs: undefined,
      step: 0,
      turn: 0,
      // Stryker disable next-line StringLiteral: equivalent, every settle passes a status in `change`, which overrides this one
      status: "pending",
      result: undefined,
      error: undefined,
      blocked: undefined,
      ...change,
    };
    return { ...state, toolCalls: appended(state.toolCalls, orphan) };
  }
  return { ...state, toolCalls: replacedAt(state.toolCalls, index, { ...(state.toolCalls[index] as ToolCallView), ...change }) };
}

function settle(previous: RunState, event: { callId: string; name: string }, content: string, isError: boolean, change: Partial<ToolCallView>): RunState {
  const state = withCall(previous, event, change);
  const { callId, name } = event;
  return {
    ...state,
    pendingCalls: state.pendingCalls.filter((call) => call.callId !== callId),
    pendingApprovals: state.pendingApprovals.filter((approval) => approval.callId !== callId),
    messages: appended<Message>(state.messages, { role: "tool", toolCallId: callId, name, content, isError }),
  };
}

function apply(previous: RunState, event: RunEvent): RunState {
  const state: RunState = { ...previous, lastSeq: event.seq, lastAt: event.at, runId: previous.runId ?? event.runId };
  switch (event.type) {
    case "run.started":
      return { ...state, status: "running", agentName: event.agent.name, started: { at: event.at, parent: event.parent } };
    case "message": {
      const turn: TurnView = { index: state.turnViews.length + 1, input: event.content, status: "running", output: "", error: undefined, steps: 0 };
      const blocked = event.blocked === true;
      return {
        ...state,
        status: "running",
        turns: state.turns + 1,
        turnSteps: 0,
        error: undefined,
        waiting: undefined,
        stepFailure: undefined,
        inputBlocked: blocked,
        turnViews: appended(state.turnViews, turn),
        // A blocked input never enters the conversation: no later request may see it.
        messages: blocked ? state.messages : appended<Message>(state.messages, { role: "user", content: event.content }),
      };
    }
    case "llm.started":
      return { ...state, pendingLlm: event, system: event.request.system };
    case "llm.failed":
      return {
        ...state,
        pendingLlm: undefined,
        llmCalls: state.llmCalls + 1,
        stepFailure: { attempt: event.attempt, retryInMs: event.retryInMs, error: event.error },
      };
    case "llm.finished": {
      const assistant: AssistantMessage = {
        role: "assistant",
        content: event.response.text,
        toolCalls: event.response.toolCalls,
      };
      return {
        ...withTurn(state, { steps: state.turnSteps + 1 }),
        pendingLlm: undefined,
        stepFailure: undefined,
        llmCalls: state.llmCalls + 1,
        steps: state.steps + 1,
        turnSteps: state.turnSteps + 1,
        usage: addUsage(state.usage, event.response.usage),
        cost: state.cost === null || event.cost === null ? null : state.cost + event.cost,
        messages: appended<Message>(state.messages, assistant),
        output: event.response.text,
      };
    }
    case "tool.requested":
      return {
        ...state,
        toolCalls: appended(state.toolCalls, {
          callId: event.callId,
          name: event.name,
          args: event.args,
          rawArgs: event.rawArgs,
          step: event.step,
          turn: Math.max(1, state.turnViews.length),
          status: "pending",
          result: undefined,
          error: undefined,
          blocked: undefined,
        }),
        pendingCalls: [
          ...state.pendingCalls,
          { callId: event.callId, name: event.name, step: event.step, args: event.args, rawArgs: event.rawArgs, phase: "requested" },
        ],
      };
    case "tool.started":
      return {
        ...state,
        pendingCalls: state.pendingCalls.map((call) => (call.callId === event.callId ? { ...call, phase: "started" } : call)),
      };
    case "tool.finished":
      return settle(state, event, toolResultContent(event.result), false, { status: "finished", result: event.result });
    case "tool.failed":
      return settle(state, event, `Error (${event.error.kind}): ${event.error.message}`, true, { status: "failed", error: event.error });
    case "tool.blocked":
      return settle(state, event, `Blocked (${event.reason}): ${event.detail}`, true, {
        status: "blocked",
        blocked: { reason: event.reason, detail: event.detail },
      });
    // Not settled: the call waits for a person (tool.decided). The model hears nothing until then.
    case "tool.unknown_outcome":
      return {
        ...withCall(state, event, { status: "unknown_outcome" }),
        pendingCalls: state.pendingCalls.map((call) => (call.callId === event.callId ? { ...call, phase: "unknown" } : call)),
      };
    case "tool.decided":
      if (event.decision === "rerun") {
        return {
          ...withCall(state, event, { status: "pending" }),
          pendingCalls: state.pendingCalls.map((call) => (call.callId === event.callId ? { ...call, phase: "rerun" } : call)),
        };
      }
      return settle(state, event, UNKNOWN_OUTCOME_SKIPPED, true, { status: "unknown_outcome" });
    case "approval.requested":
      return {
        ...state,
        pendingApprovals: [
          ...state.pendingApprovals.filter((approval) => approval.callId !== event.callId),
          {
            callId: event.callId,
            tool: event.tool,
            argsHash: event.argsHash,
            roles: event.roles,
            granted: [],
            deadline: event.deadline,
            denied: undefined,
            expired: false,
          },
        ],
      };
    case "approval.granted":
      return {
        ...state,
        pendingApprovals: state.pendingApprovals.map((approval) => {
          if (approval.callId !== event.callId || approval.argsHash !== event.argsHash) return approval;
          // A grant that arrives after the deadline does not count: the call has expired.
          // Without a deadline a grant never comes too late.
          if (Date.parse(event.at) > (approval.deadline ?? Number.POSITIVE_INFINITY)) return { ...approval, expired: true };
          return approval.granted.includes(event.role) ? approval : { ...approval, granted: [...approval.granted, event.role] };
        }),
      };
    // The call itself is settled by the tool.blocked event the gate writes next.
    case "approval.denied":
      return {
        ...state,
        pendingApprovals: state.pendingApprovals.map((approval) =>
          approval.callId === event.callId && approval.argsHash === event.argsHash
            ? { ...approval, denied: { role: event.role, reason: event.reason } }
            : approval,
        ),
      };
    case "approval.expired":
      return {
        ...state,
        pendingApprovals: state.pendingApprovals.map((approval) => (approval.callId === event.callId ? { ...approval, expired: true } : approval)),
      };
    case "run.paused":
      return { ...withTurn(state, { status: "waiting" }), status: "waiting", waiting: { pending: event.pending, childRunId: event.childRunId } };
    case "run.resumed":
      return { ...withTurn(state, { status: "running" }), status: "running", waiting: undefined };
    case "run.finished": {
      const current = state.turnViews[state.turnViews.length - 1];
      // An outcome with no open turn (a log written before blocked inputs were kept) is a turn
      // of its own, never a rewrite of the turn before it.
      const open =
        current && (current.status === "running" || current.status === "waiting")
          ? state
          : { ...state, turnViews: [...state.turnViews, { index: state.turnViews.length + 1, input: "", status: "running" as const, output: "", error: undefined, steps: 0 }] };
      return {
        ...withTurn(open, { status: event.status, output: event.output, error: event.error }),
        status: event.status,
        output: event.output,
        error: event.error,
        waiting: undefined,
        lastFinished: { output: event.output, usage: event.usage, cost: event.cost, steps: event.steps },
      };
    }
    case "retrieval":
      return {
        ...state,
        retrievals: appended(state.retrievals, {
          callId: event.callId,
          tool: event.tool,
          mode: event.mode ?? "tool",
          turn: event.turn ?? Math.max(1, state.turns),
          query: event.query,
          chunks: event.chunks,
        }),
      };
    case "guardrail": {
      const { v: _v, runId: _runId, at: _at, type: _type, ...rest } = event;
      return { ...state, guardrails: appended(state.guardrails, rest) };
    }
  }
}
