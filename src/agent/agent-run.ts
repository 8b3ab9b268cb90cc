import { digest, frozenDigest } from "../canonical/index.js";
import type { RunContext } from "../context/index.js";
import { RunError } from "../errors/index.js";
import { identityOf, type ErrorInfo, type EventOf, type LlmResponse, type RunEvent } from "../contracts/index.js";
import { driveRun, RunLog, type LogPayload, type RunLogOptions } from "../store/index.js";
import { eventRedactor } from "../redaction/index.js";
import { type RunStore } from "../contracts/index.js";
import { toolSpecs } from "../tools/index.js";
import type { AgentDefinition, TurnOutcome } from "./definition.js";
import { parseArguments } from "./arguments.js";
import { LazyAbort, signalCancellation, type Cancellation } from "./cancellation.js";
import { childRunId, subAgentDefinition, type SubAgentTool } from "./sub-agent.js";
import { modelStep } from "./model-step.js";
import { runPendingCalls } from "./tool-batch.js";
import { augmentTurn } from "./augment.js";

export interface TurnOptions {
  signal?: AbortSignal;
  /** The turn's cancellation, in place of `signal` (not with it): its signal is made only if something takes one (see cancellation.ts). */
  cancellation?: Cancellation;
  /** Text as the model streams it, from every step and every attempt. */
  onTextDelta?: (delta: string) => void;
  /** A step ended with tool calls: streamed text so far was not the answer. */
  onStepEnd?: (response: LlmResponse) => void;
  /** An attempt failed and will be retried: text it streamed is void. */
  onRetry?: (failure: { attempt: number; message: string; retryInMs: number }) => void;
}

/** Refuses, before the turn logs anything, a turn given two ways to cancel it. */
function oneCancellation(options: TurnOptions): void {
  if (options.signal && options.cancellation) throw new TypeError("a turn takes a signal or a cancellation, not both");
}

/** What identifies an agent's behaviour: a change here is a change replay should notice. */
export function agentDigest(agent: AgentDefinition): string {
  return digest({
    name: agent.name,
    system: agent.system ?? null,
    maxSteps: agent.maxSteps,
    // Where the model sends its requests and the sampling it adds to them decide answers too.
    model: identityOf(agent.model),
    tools: frozenDigest(toolSpecs(agent.tools)),
    sampling: agent.sampling ?? {},
    // Governance and the rest of the configuration decide behaviour too.
    config: agent.config !== null && typeof agent.config === "object" ? frozenDigest(agent.config) : (agent.config ?? null),
    // Augmentation shapes every request; agents without it keep the digest they always had.
    ...(agent.retrieval
      ? { retrieval: { topK: agent.retrieval.topK, minScore: agent.retrieval.minScore ?? null, template: agent.retrieval.template ?? null } }
      : {}),
  });
}

/**
 * One run of an agent: `send` adds a user turn and drives the loop until the turn completes,
 * fails or waits for a decision. All state is read back from the log, so a run opened from
 * the store continues exactly where it stopped.
 */
export class AgentRun {
  readonly agent: AgentDefinition;
  readonly log: RunLog;
  readonly #context: RunContext;
  /** Opened from the store (not started here): another process may want to drive it too. */
  readonly #opened: boolean;

  private constructor(agent: AgentDefinition, log: RunLog, context: RunContext, opened: boolean) {
    this.agent = agent;
    this.log = log;
    this.#context = context;
    this.#opened = opened;
  }

  static start(
    agent: AgentDefinition,
    options: {
      store: RunStore;
      context: RunContext;
      runId?: string;
      parent?: { runId: string; callId: string };
      source?: { config?: string; mock?: string; cassette?: string };
    },
  ): AgentRun {
    const runId = options.runId ?? options.context.ids.runId();
    const log = RunLog.create(runId, options.store, clockOf(options.context, runId), logOptions(agent));
    log.append<"run.started">({
      type: "run.started",
      agent: { name: agent.name, digest: agentDigest(agent) },
      model: identityOf(agent.model),
      seed: options.context.seed,
      config: agent.config ?? null,
      ...(options.parent ? { parent: options.parent } : {}),
      ...(options.source ? { source: options.source } : {}),
    });
    return new AgentRun(agent, log, options.context, false);
  }

  static open(agent: AgentDefinition, runId: string, options: { store: RunStore; context: RunContext }): AgentRun {
    const log = RunLog.open(runId, options.store, clockOf(options.context, runId), logOptions(agent));
    if (log.events.length === 0) throw new RunError("run_not_found", "no such run in this store", { runId });
    return new AgentRun(agent, log, options.context, true);
  }

  get runId(): string {
    return this.log.runId;
  }

  /**
   * Adds a user turn and drives it. On a run opened from the store, the run is taken first, as
   * `resume` takes it (one runner per run); a run started by this object is its own.
   */
  send(message: string, options: TurnOptions = {}): Promise<TurnOutcome> {
    // Not async itself: both paths are async already (they reject, never throw), and a wrapper
    // would only add a promise per turn.
    return this.#opened ? this.#exclusively(() => this.#send(message, options)) : this.#send(message, options);
  }

  async #send(message: string, options: TurnOptions): Promise<TurnOutcome> {
    oneCancellation(options);
    const state = this.log.state;
    if (state.status === "waiting") {
      throw new RunError("run_waiting", "the run is waiting for an approval; decide it and resume before sending another message", {
        runId: this.runId,
      });
    }
    if (state.status === "running" && state.turns > 0) {
      // A turn with no outcome (a crash, or a send still being driven): a new message now
      // would land mid-turn, before the calls and the answer the turn still owes.
      throw new RunError(
        "run_unfinished",
        `the run's last turn has no outcome yet (it was interrupted, or is still running); continue it with \`retrace resume ${this.runId}\` (AgentRun.resume()) before sending another message`,
        { runId: this.runId },
      );
    }
    const firings = this.agent.guardrails?.checkInput(message) ?? [];
    const blocking = firings.filter((firing) => firing.action === "block");
    if (blocking.length > 0) {
      // The text is logged (a replay re-sends it, views show it) but never enters the conversation.
      return this.#finish("failed", blockedInput(blocking), [{ type: "message", role: "user", content: message, blocked: true }, ...firings]);
    }
    this.log.appendAll([...firings, { type: "message", role: "user", content: message }]);
    return this.#drive(options);
  }

  /**
   * Continues a paused or interrupted run from its log. A paused run always logs `run.resumed`;
   * an interrupted one logs it when `mark` is set (the CLI sets it, so a trace shows where a
   * process took over). A model call the crash interrupted is closed (`llm.interrupted`) and
   * asked again as the next attempt (docs/durability.md).
   *
   * One runner per run: the run (its family's top run) is taken for the time of the call — in
   * a SQLite store with the lease the CLI takes — and a run another driver holds is refused
   * with RunBusyError naming it (pid, host, since), before anything is read or written.
   */
  async resume(options: TurnOptions & { mark?: boolean } = {}): Promise<TurnOutcome> {
    return this.#exclusively(() => this.#resume(options));
  }

  async #resume(options: TurnOptions & { mark?: boolean }): Promise<TurnOutcome> {
    oneCancellation(options);
    const status = this.log.state.status;
    if (status === "completed" || status === "failed") return this.#outcome();
    if (this.log.state.turns === 0) {
      throw new RunError("run_no_turn", "the run has no turn to continue (it stopped before its first message was logged); send the message again", { runId: this.runId });
    }
    if (status === "waiting" || options.mark === true) this.log.append<"run.resumed">({ type: "run.resumed" });
    return this.#drive(options);
  }

  /** Runs `work` holding the run (see `resume`); a sub-agent run is held by the parent driving it. */
  async #exclusively(work: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    if (drivenByParent.has(this)) return work();
    const lease = driveRun(this.log.store, this.runId);
    try {
      // Opened before another driver finished with it: this object's view of the log is old.
      if (this.log.store.lastSeq(this.runId) !== this.log.state.lastSeq) {
        throw new RunError("run_changed", "the run was continued by another driver since it was opened here; open it again (AgentRun.open) to continue from its log", {
          runId: this.runId,
        });
      }
      return await work();
    } finally {
      lease.release();
    }
  }

  async #drive(options: TurnOptions): Promise<TurnOutcome> {
    // A signal of its own, made only if something takes it, when none is given.
    const cancel = options.cancellation ?? (options.signal ? signalCancellation(options.signal) : new LazyAbort());
    for (;;) {
      if (cancel.aborted) return this.#finish("failed", { code: "aborted", message: "the run was aborted" });
      // Nothing pending (the first step of every turn, and every answer): nothing to settle, and
      // no promise made to learn it — under Node 20 each one a case makes costs a hook call.
      const batch =
        this.log.state.pendingCalls.length === 0
          ? NOTHING_PENDING
          : await runPendingCalls(this.agent, this.log, this.#context, cancel.signal, (tool, task, callId) => runChild(tool, task, this.log, callId, this.#context, cancel));
      if (batch.paused) {
        this.log.append<"run.paused">({
          type: "run.paused",
          reason: batch.reason,
          pending: batch.pending,
          ...(batch.reason === "child_waiting" ? { childRunId: batch.childRunId } : {}),
        });
        return this.#outcome();
      }
      const state = this.log.state;
      // A crash after a blocked input was logged but before its outcome: it ends as it began.
      if (state.inputBlocked) return this.#finish("failed", blockedInput(this.#turnGuardrails("input").filter((firing) => firing.action === "block")));
      // A crash after the turn's answer was logged but before run.finished: finish it, never
      // re-ask — checked before the step limit, which the answering step may have reached.
      const last = state.messages.at(-1);
      if (last?.role === "assistant" && last.toolCalls.length === 0 && state.pendingLlm === undefined) {
        return this.#finish("completed");
      }
      if (state.turnSteps >= this.agent.maxSteps) {
        return this.#finish("failed", {
          code: "max_steps",
          message: `the agent used its ${this.agent.maxSteps} step(s) without finishing the turn`,
        });
      }
      const unaugmented = this.agent.retrieval ? await augmentTurn(this.agent, this.log) : undefined;
      if (unaugmented) return this.#finish("failed", unaugmented);
      const step = await modelStep({
        agent: this.agent,
        log: this.log,
        seed: this.#context.seed,
        sleep: (ms) => this.#context.clock.sleep(ms),
        cancel,
        ...(options.onTextDelta ? { onTextDelta: options.onTextDelta } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      });
      if (!step.ok) return this.#finish("failed", step.error);
      const { finished } = step;
      const { response } = finished;
      // The answer and the calls it asks for land together: a crash cannot keep one without the other.
      this.log.appendAll([
        finished,
        ...response.toolCalls.map((call) => {
          const parsed = parseArguments(call.arguments);
          return {
            type: "tool.requested" as const,
            step: finished.step,
            callId: call.id,
            name: call.name,
            ...(parsed.ok ? { args: parsed.value } : { rawArgs: call.arguments }),
          };
        }),
      ]);
      if (response.toolCalls.length === 0) return this.#finish("completed");
      options.onStepEnd?.(response);
    }
  }

  /**
   * Ends the turn in one append — `leading` events, calls that will not run, the output
   * guardrails' firings and `run.finished` — so a crash leaves the turn either open or ended,
   * never half-checked.
   */
  #finish(status: "completed" | "failed", error?: ErrorInfo, leading: LogPayload[] = []): TurnOutcome {
    const events: LogPayload[] = [...leading];
    // Calls the turn never got to must not run later, after some other message.
    const unrun = this.log.state.pendingCalls.filter((call) => call.phase === "requested");
    for (const call of unrun) {
      events.push({
        type: "tool.failed",
        callId: call.callId,
        name: call.name,
        error: { kind: "not_run", message: `the turn ended (${error?.code ?? status}) before this call ran` },
      });
    }
    let output = status === "completed" ? this.log.state.output : "";
    if (status === "completed" && this.agent.guardrails) {
      const checked = this.agent.guardrails.checkOutput(output);
      // A log from before finishing was one append may hold this answer's firings already.
      if (checked.firings.length && this.#turnGuardrails("output").length === 0) events.push(...checked.firings);
      const blocking = checked.firings.filter((firing) => firing.action === "block");
      if (blocking.length > 0) {
        status = "failed";
        output = "";
        error = { code: "guardrail_blocked", message: `the answer was withheld: ${blocking.map((firing) => firing.rule).join(", ")}` };
      } else output = checked.text;
    }
    const state = this.log.state;
    events.push({
      type: "run.finished",
      status,
      output,
      ...(error ? { error } : {}),
      usage: state.usage,
      cost: state.cost,
      steps: state.steps,
    });
    this.log.appendAll(events);
    return this.#outcome();
  }

  /** Guardrail firings of one direction logged since the current turn's last answer (input: since its message). */
  #turnGuardrails(direction: "input" | "output"): EventOf<"guardrail">[] {
    const found: EventOf<"guardrail">[] = [];
    const events = this.log.events;
    for (let index = events.length - 1; index >= 0; index--) {
      const event = events[index] as RunEvent;
      if (event.type === "message" || event.type === "run.finished" || (direction === "output" && event.type === "llm.finished")) break;
      if (event.type === "guardrail" && event.direction === direction) found.unshift(event);
    }
    return found;
  }

  #outcome(): TurnOutcome {
    const state = this.log.state;
    const status = state.status === "running" || state.status === "new" ? "failed" : state.status;
    return {
      runId: this.runId,
      status,
      output: state.output,
      ...(state.error ? { error: state.error } : {}),
      pending: state.waiting?.pending ?? [],
      ...(state.waiting?.childRunId ? { childRunId: state.waiting.childRunId } : {}),
    };
  }
}

/** A replay serves each run the times it recorded, so each run (a child too) reads its own clock. */
function clockOf(context: RunContext, runId: string): RunContext["clock"] {
  return context.clockFor?.(runId) ?? context.clock;
}

function logOptions(agent: AgentDefinition): RunLogOptions {
  return agent.redaction ? { redact: eventRedactor(agent.redaction) } : {};
}

function blockedInput(blocking: readonly Pick<EventOf<"guardrail">, "rule" | "detail">[]): ErrorInfo {
  return {
    code: "guardrail_blocked",
    message: `the input was blocked before any model call: ${blocking.map((firing) => `${firing.rule} (${firing.detail})`).join("; ")}`,
  };
}

const NOTHING_PENDING = { paused: false } as const;

/** Sub-agent runs driven by the run that called them, which holds their family. */
const drivenByParent = new WeakSet<AgentRun>();

/**
 * Starts the call's child run, or continues it if the log already has one (after a pause). The
 * child's turn is cancelled with the parent's (a case's deadline reaches a sub-agent's calls).
 */
function runChild(tool: SubAgentTool, task: string, parent: RunLog, callId: string, context: RunContext, cancellation: Cancellation): Promise<TurnOutcome> {
  const runId = childRunId(parent.runId, callId);
  const options = { store: parent.store, context };
  const child = subAgentDefinition(tool);
  const turn = { cancellation };
  if (parent.store.lastSeq(runId) > 0) {
    const opened = AgentRun.open(child, runId, options);
    drivenByParent.add(opened);
    // A crash between the child's start and its task: the task is the turn it still owes.
    return opened.log.state.turns === 0 ? opened.send(task, turn) : opened.resume(turn);
  }
  return AgentRun.start(child, { ...options, runId, parent: { runId: parent.runId, callId } }).send(task, turn);
}
