/**
 * fold(events) → RunState: the only way Retrace learns a run's state. Pure, total on any
 * prefix of a valid log (a crash can cut a log anywhere), and deterministic.
 */
import { canonicalJson } from "../canonical/index.js";
import type { ErrorInfo, RunEvent, RunStatus, EventOf } from "../contracts/index.js";
import { addUsage, emptyUsage, type AssistantMessage, type Message, type Usage } from "../contracts/index.js";

export interface PendingCall {
  callId: string;
  name: string;
  step: number;
  args: unknown;
  rawArgs: string | undefined;
  /** "requested": nothing ran yet; "started": the tool began and its outcome is not in the log. */
  phase: "requested" | "started";
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
  };
}

export function fold(events: readonly RunEvent[], from: RunState = initialState()): RunState {
  let state = from;
  for (const event of events) state = apply(state, event);
  return state;
}

/** What the model is told about a tool call's outcome; derived here so replay derives the same. */
export function toolResultContent(result: unknown): string {
  return typeof result === "string" ? result : canonicalJson(result);
}

function settle(state: RunState, callId: string, name: string, content: string, isError: boolean): RunState {
  return {
    ...state,
    pendingCalls: state.pendingCalls.filter((call) => call.callId !== callId),
    pendingApprovals: state.pendingApprovals.filter((approval) => approval.callId !== callId),
    messages: [...state.messages, { role: "tool", toolCallId: callId, name, content, isError }],
  };
}

function apply(previous: RunState, event: RunEvent): RunState {
  const state: RunState = { ...previous, lastSeq: event.seq, runId: previous.runId ?? event.runId };
  switch (event.type) {
    case "run.started":
      return { ...state, status: "running", agentName: event.agent.name };
    case "message":
      return {
        ...state,
        status: "running",
        turns: state.turns + 1,
        turnSteps: 0,
        error: undefined,
        waiting: undefined,
        messages: [...state.messages, { role: "user", content: event.content }],
      };
    case "llm.started":
      return { ...state, pendingLlm: event, system: event.request.system };
    case "llm.failed":
      return { ...state, pendingLlm: undefined, llmCalls: state.llmCalls + 1 };
    case "llm.finished": {
      const assistant: AssistantMessage = {
        role: "assistant",
        content: event.response.text,
        toolCalls: event.response.toolCalls,
      };
      return {
        ...state,
        pendingLlm: undefined,
        llmCalls: state.llmCalls + 1,
        steps: state.steps + 1,
        turnSteps: state.turnSteps + 1,
        usage: addUsage(state.usage, event.response.usage),
        cost: state.cost === null || event.cost === null ? null : state.cost + event.cost,
        messages: [...state.messages, assistant],
        output: event.response.text,
      };
    }
    case "tool.requested":
      return {
        ...state,
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
      return settle(state, event.callId, event.name, toolResultContent(event.result), false);
    case "tool.failed":
      return settle(state, event.callId, event.name, `Error (${event.error.kind}): ${event.error.message}`, true);
    case "tool.blocked":
      return settle(state, event.callId, event.name, `Blocked (${event.reason}): ${event.detail}`, true);
    case "tool.unknown_outcome":
      return settle(
        state,
        event.callId,
        event.name,
        `Error (unknown_outcome): ${event.detail}`,
        true,
      );
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
      return { ...state, status: "waiting", waiting: { pending: event.pending, childRunId: event.childRunId } };
    case "run.resumed":
      return { ...state, status: "running", waiting: undefined };
    case "run.finished":
      return { ...state, status: event.status, output: event.output, error: event.error, waiting: undefined };
    case "retrieval":
    case "guardrail":
      return state;
  }
}
