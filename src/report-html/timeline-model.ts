/**
 * A run's events folded into what the timeline page draws: rows in log order, a model call's
 * llm.started and llm.finished in one row, a tool call's requested/started/finished (and its
 * approvals, guardrail firings and retrievals) in another, child runs attached to the call
 * that started them. Pure: the same events always give the same model.
 *
 * Requests are stored compactly. Each model request repeats the whole conversation, so a
 * 2,000-step run holds millions of messages; the page keeps each request as "the previous
 * request's first k messages, plus these", and system prompts and tool lists once each.
 */
import type { ErrorInfo, EventOf, LlmRequest, LlmResponse, Message, RetrievedChunk, RunEvent, ToolSpec, Usage } from "../contracts/index.js";

export interface TimelineRunInput {
  events: readonly RunEvent[];
  /** The runs its sub-agent calls started, each with its own children. */
  children?: readonly TimelineRunInput[];
}

/**
 * A request's messages as `base[0, keep) ++ base[keep + skip, keep + skip + take) ++ add`, where
 * base is the messages of row `from`: a conversation that grew keeps everything and adds the
 * new turns; one kept in a context window (first message, then the latest ones) keeps the first,
 * skips what fell out of the window and takes the rest.
 */
export interface MessagesDelta {
  /** Row index (in the same run) of the model call whose messages this request builds on; null: none. */
  from: number | null;
  keep: number;
  skip?: number;
  take?: number;
  add: Message[];
}

export interface ModelRow {
  k: "model";
  seqs: number[];
  t: number;
  step: number;
  attempt: number;
  key: string;
  /** Index into TimelineData.systems; absent when the request has no system prompt. */
  sys?: number;
  /** Index into TimelineData.toolSets. */
  tools: number;
  msgs: MessagesDelta;
  params: Omit<LlmRequest, "system" | "messages" | "tools">;
  response?: LlmResponse;
  failed?: EventOf<"llm.failed">["error"] & { retryInMs: number | null };
  /** The process stopped during the call; a resume closed it (llm.interrupted) and asked again. */
  interrupted?: true;
  cost: number | null;
  durationMs: number | null;
}

export interface Approval {
  seq: number;
  kind: "requested" | "granted" | "denied" | "expired";
  roles?: string[];
  role?: string;
  by?: string;
  reason?: string;
  deadline?: number;
}

export interface GuardrailFiring {
  seq: number;
  direction: "input" | "output";
  action: "block" | "warn" | "redact";
  rule: string;
  detail: string;
}

export interface ToolRow {
  k: "tool";
  seqs: number[];
  t: number;
  step: number;
  callId: string;
  name: string;
  args?: unknown;
  rawArgs?: string;
  status: "pending" | "running" | "finished" | "failed" | "blocked" | "unknown_outcome";
  result?: unknown;
  error?: { kind: string; message: string };
  blocked?: { reason: string; detail: string };
  unknown?: string;
  approvals: Approval[];
  guardrails: GuardrailFiring[];
  retrievals: { seq: number; tool?: string; query: string; chunks: RetrievedChunk[] }[];
  /** Index into TimelineData.runs of the child run this call started. */
  child?: number;
}

export type EventRow =
  | { k: "turn"; seqs: number[]; t: number; turn: number; content: string; blocked: boolean }
  | { k: "started"; seqs: number[]; t: number; seed: number; config: unknown; source?: unknown }
  | { k: "guardrail"; seqs: number[]; t: number; firing: GuardrailFiring; callId?: string }
  | { k: "approval"; seqs: number[]; t: number; callId: string; approval: Approval }
  /** A retrieval no tool call holds: the agent's own before a turn's model call (mode "augment"). */
  | { k: "retrieval"; seqs: number[]; t: number; callId?: string; tool?: string; mode: "tool" | "augment"; query: string; chunks: RetrievedChunk[] }
  | { k: "paused"; seqs: number[]; t: number; reason: string; pending: { callId: string; tool: string; roles: string[]; runId?: string }[]; childRunId?: string }
  | { k: "resumed"; seqs: number[]; t: number }
  | { k: "finished"; seqs: number[]; t: number; status: string; output: string; error?: ErrorInfo; usage: Usage; cost: number | null; steps: number };

export type TimelineRow = ModelRow | ToolRow | EventRow;

export interface TimelineRun {
  runId: string;
  agent: string;
  model: string;
  status: string;
  startedAt: string;
  /** From the first event to the last, on the run's clock. */
  durationMs: number;
  events: number;
  parent?: { runId: string; callId: string };
  steps: number;
  usage: Usage;
  cost: number | null;
  output: string;
  error?: ErrorInfo;
  rows: TimelineRow[];
}

export interface TimelineModel {
  runs: TimelineRun[];
  systems: string[];
  toolSets: ToolSpec[][];
}

/** Structural equality of JSON values (what a parsed event holds). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) if (!Object.hasOwn(b, key) || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}

/** Interns values that repeat from call to call (system prompts, tool lists), comparing with the last one first. */
class Interned<T> {
  readonly values: T[] = [];
  index(value: T): number {
    for (let i = this.values.length - 1; i >= 0; i--) if (sameJson(this.values[i], value)) return i;
    this.values.push(value);
    return this.values.length - 1;
  }
}

function sum(usage: Usage | null): number | null {
  return usage === null ? null : usage.inputTokens + usage.outputTokens;
}

export function buildTimeline(root: TimelineRunInput): TimelineModel {
  const systems = new Interned<string>();
  const toolSets = new Interned<ToolSpec[]>();
  const runs: TimelineRun[] = [];

  const addRun = (input: TimelineRunInput): number => {
    const index = runs.length;
    const run = foldRun(input.events, systems, toolSets);
    runs.push(run);
    const unclaimed: number[] = [];
    for (const child of input.children ?? []) {
      const childIndex = addRun(child);
      const callId = runs[childIndex]?.parent?.callId;
      const row = run.rows.find((candidate): candidate is ToolRow => candidate.k === "tool" && candidate.callId === callId);
      if (row && row.child === undefined) row.child = childIndex;
      else unclaimed.push(childIndex);
    }
    // A child whose call is not in this log (a log cut short) still shows, at the end.
    for (const childIndex of unclaimed) {
      const child = runs[childIndex] as TimelineRun;
      run.rows.push({ k: "tool", seqs: [], t: run.durationMs, step: 0, callId: child.parent?.callId ?? "?", name: `(child run ${child.runId})`, status: "pending", approvals: [], guardrails: [], retrievals: [], child: childIndex });
    }
    return index;
  };
  addRun(root);
  return { runs, systems: systems.values, toolSets: toolSets.values };
}

function foldRun(events: readonly RunEvent[], systems: Interned<string>, toolSets: Interned<ToolSpec[]>): TimelineRun {
  const first = events[0];
  const start = first ? Date.parse(first.at) : 0;
  const offset = (event: RunEvent) => {
    const at = Date.parse(event.at);
    return Number.isFinite(at) && Number.isFinite(start) ? Math.max(0, at - start) : 0;
  };
  const rows: TimelineRow[] = [];
  const tools = new Map<string, ToolRow>();
  const openModel = new Map<string, ModelRow>();
  let previousModel: { index: number; messages: readonly Message[] } | undefined;
  let turn = 0;
  const run: TimelineRun = {
    runId: first?.runId ?? "(empty)",
    agent: "",
    model: "",
    status: events.length ? "running" : "new",
    startedAt: first?.at ?? "",
    durationMs: 0,
    events: events.length,
    steps: 0,
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    cost: null,
    output: "",
    rows,
  };
  let cost: number | null = 0;
  let step = 0;

  /** The call's row, created by its first event; every tool event of the call adds its seq. */
  const toolRow = (callId: string, name: string, event: RunEvent): ToolRow => {
    let row = tools.get(callId);
    if (!row) {
      row = { k: "tool", seqs: [], t: offset(event), step, callId, name, status: "pending", approvals: [], guardrails: [], retrievals: [] };
      tools.set(callId, row);
      rows.push(row);
    }
    row.seqs.push(event.seq);
    return row;
  };

  for (const event of events) {
    const t = offset(event);
    switch (event.type) {
      case "run.started":
        run.agent = event.agent.name;
        run.model = `${event.model.provider}/${event.model.model}`;
        if (event.parent) run.parent = event.parent;
        rows.push({ k: "started", seqs: [event.seq], t, seed: event.seed, config: event.config, ...(event.source ? { source: event.source } : {}) });
        break;
      case "message":
        turn++;
        run.status = "running";
        rows.push({ k: "turn", seqs: [event.seq], t, turn, content: event.content, blocked: event.blocked === true });
        break;
      case "llm.started": {
        step = event.step;
        const { system, messages, tools: specs, ...params } = event.request;
        const delta = previousModel ? deltaOf(previousModel.messages, messages) : { keep: 0, add: messages };
        const row: ModelRow = {
          k: "model",
          seqs: [event.seq],
          t,
          step: event.step,
          attempt: event.attempt,
          key: event.requestKey,
          ...(system !== undefined ? { sys: systems.index(system) } : {}),
          tools: toolSets.index(specs),
          msgs: { from: previousModel && delta.keep + (delta.take ?? 0) > 0 ? previousModel.index : null, ...delta },
          params,
          cost: null,
          durationMs: null,
        };
        previousModel = { index: rows.length, messages };
        openModel.set(`${event.step}:${event.attempt}`, row);
        rows.push(row);
        break;
      }
      case "llm.finished": {
        const row = openModel.get(`${event.step}:${event.attempt}`);
        if (row) {
          row.seqs.push(event.seq);
          row.response = event.response;
          row.cost = event.cost;
          row.durationMs = event.durationMs;
        }
        cost = cost === null || event.cost === null ? null : cost + event.cost;
        break;
      }
      case "llm.failed": {
        const row = openModel.get(`${event.step}:${event.attempt}`);
        if (row) {
          row.seqs.push(event.seq);
          row.failed = { ...event.error, retryInMs: event.retryInMs };
          row.durationMs = Math.max(0, t - row.t);
        }
        break;
      }
      case "llm.interrupted": {
        const row = openModel.get(`${event.step}:${event.attempt}`);
        if (row) {
          row.seqs.push(event.seq);
          row.interrupted = true;
        }
        break;
      }
      case "tool.requested": {
        const row = toolRow(event.callId, event.name, event);
        row.step = event.step;
        if (event.args !== undefined) row.args = event.args;
        if (event.rawArgs !== undefined) row.rawArgs = event.rawArgs;
        break;
      }
      case "tool.started": {
        const row = toolRow(event.callId, event.name, event);
        row.status = "running";
        break;
      }
      case "tool.finished": {
        const row = toolRow(event.callId, event.name, event);
        row.status = "finished";
        row.result = event.result;
        break;
      }
      case "tool.failed": {
        const row = toolRow(event.callId, event.name, event);
        row.status = "failed";
        row.error = event.error;
        break;
      }
      case "tool.blocked": {
        const row = toolRow(event.callId, event.name, event);
        row.status = "blocked";
        row.blocked = { reason: event.reason, detail: event.detail };
        break;
      }
      case "tool.unknown_outcome": {
        const row = toolRow(event.callId, event.name, event);
        row.status = "unknown_outcome";
        row.unknown = event.detail;
        break;
      }
      case "retrieval": {
        const retrieval = { seq: event.seq, ...(event.tool !== undefined ? { tool: event.tool } : {}), query: event.query, chunks: event.chunks };
        const row = event.callId === undefined ? undefined : tools.get(event.callId);
        if (row) {
          row.seqs.push(event.seq);
          row.retrievals.push(retrieval);
        } else {
          rows.push({ k: "retrieval", seqs: [event.seq], t, ...(event.callId !== undefined ? { callId: event.callId } : {}), mode: event.mode ?? (event.callId === undefined ? "augment" : "tool"), ...retrieval });
        }
        break;
      }
      case "guardrail": {
        const firing: GuardrailFiring = { seq: event.seq, direction: event.direction, action: event.action, rule: event.rule, detail: event.detail };
        const row = event.callId === undefined ? undefined : tools.get(event.callId);
        if (row) {
          row.seqs.push(event.seq);
          row.guardrails.push(firing);
        } else rows.push({ k: "guardrail", seqs: [event.seq], t, firing, ...(event.callId !== undefined ? { callId: event.callId } : {}) });
        break;
      }
      case "approval.requested":
      case "approval.granted":
      case "approval.denied":
      case "approval.expired": {
        const approval = approvalOf(event);
        const row = tools.get(event.callId);
        if (row) {
          row.seqs.push(event.seq);
          row.approvals.push(approval);
        } else rows.push({ k: "approval", seqs: [event.seq], t, callId: event.callId, approval });
        break;
      }
      case "run.paused":
        run.status = "waiting";
        rows.push({ k: "paused", seqs: [event.seq], t, reason: event.reason, pending: event.pending, ...(event.childRunId ? { childRunId: event.childRunId } : {}) });
        break;
      case "run.resumed":
        run.status = "running";
        rows.push({ k: "resumed", seqs: [event.seq], t });
        break;
      case "run.finished":
        run.status = event.status;
        run.output = event.output;
        run.usage = event.usage;
        run.cost = event.cost;
        run.steps = event.steps;
        if (event.error) run.error = event.error;
        else delete run.error;
        rows.push({ k: "finished", seqs: [event.seq], t, status: event.status, output: event.output, ...(event.error ? { error: event.error } : {}), usage: event.usage, cost: event.cost, steps: event.steps });
        break;
    }
    run.durationMs = t;
  }
  if (!events.some((event) => event.type === "run.finished")) {
    // A run still going (or cut short): totals from its model calls.
    for (const row of rows) {
      if (row.k !== "model" || !row.response) continue;
      run.steps++;
      const usage = row.response.usage;
      if (usage) {
        run.usage.inputTokens += usage.inputTokens;
        run.usage.outputTokens += usage.outputTokens;
        run.usage.cachedInputTokens += usage.cachedInputTokens;
      }
    }
    run.cost = cost;
  }
  return run;
}

/** How `messages` is built from `before`: the common start, then the longest run of `before` that continues it. */
function deltaOf(before: readonly Message[], messages: readonly Message[]): Omit<MessagesDelta, "from"> {
  let keep = 0;
  const limit = Math.min(before.length, messages.length);
  while (keep < limit && sameJson(before[keep], messages[keep])) keep++;
  if (keep < messages.length && keep < before.length) {
    for (let start = keep + 1; start < before.length; start++) {
      if (!sameJson(before[start], messages[keep])) continue;
      let take = 1;
      while (start + take < before.length && keep + take < messages.length && sameJson(before[start + take], messages[keep + take])) take++;
      return { keep, skip: start - keep, take, add: messages.slice(keep + take) };
    }
  }
  return { keep, add: messages.slice(keep) };
}

function approvalOf(event: EventOf<"approval.requested" | "approval.granted" | "approval.denied" | "approval.expired">): Approval {
  switch (event.type) {
    case "approval.requested":
      return { seq: event.seq, kind: "requested", roles: event.roles, ...(event.deadline !== undefined ? { deadline: event.deadline } : {}) };
    case "approval.granted":
      return { seq: event.seq, kind: "granted", role: event.role, ...(event.by !== undefined ? { by: event.by } : {}) };
    case "approval.denied":
      return { seq: event.seq, kind: "denied", role: event.role, reason: event.reason, ...(event.by !== undefined ? { by: event.by } : {}) };
    case "approval.expired":
      return { seq: event.seq, kind: "expired", reason: event.detail };
  }
}

/** Per model call of the run: duration and tokens, for the charts. */
export function stepSeries(run: TimelineRun): { labels: string[]; durations: (number | null)[]; tokens: (number | null)[]; failed: boolean[] } {
  const labels: string[] = [];
  const durations: (number | null)[] = [];
  const tokens: (number | null)[] = [];
  const failed: boolean[] = [];
  for (const row of run.rows) {
    if (row.k !== "model") continue;
    labels.push(`step ${row.step}${row.attempt > 1 ? ` attempt ${row.attempt}` : ""}`);
    durations.push(row.durationMs);
    tokens.push(row.response ? sum(row.response.usage) : null);
    failed.push(row.failed !== undefined);
  }
  return { labels, durations, tokens, failed };
}
