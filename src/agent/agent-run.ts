import { digest, frozenDigest } from "../canonical/index.js";
import type { RunContext } from "../context/index.js";
import { RunError } from "../errors/index.js";
import { identityOf, type ErrorInfo, type EventOf, type LlmResponse } from "../contracts/index.js";
import { RunLog } from "../store/index.js";
import { type RunStore } from "../contracts/index.js";
import { toolSpecs } from "../tools/index.js";
import type { AgentDefinition, TurnOutcome } from "./definition.js";
import { childRunId, subAgentDefinition, type SubAgentTool } from "./sub-agent.js";
import { modelStep } from "./model-step.js";
import { runPendingCalls } from "./tool-batch.js";

export interface TurnOptions {
  signal?: AbortSignal;
  /** Text as the model streams it, from every step and every attempt. */
  onTextDelta?: (delta: string) => void;
  /** A step ended with tool calls: streamed text so far was not the answer. */
  onStepEnd?: (response: LlmResponse) => void;
  /** An attempt failed and will be retried: text it streamed is void. */
  onRetry?: (failure: { attempt: number; message: string; retryInMs: number }) => void;
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

  private constructor(agent: AgentDefinition, log: RunLog, context: RunContext) {
    this.agent = agent;
    this.log = log;
    this.#context = context;
  }

  static start(
    agent: AgentDefinition,
    options: {
      store: RunStore;
      context: RunContext;
      runId?: string;
      parent?: { runId: string; callId: string };
      source?: { config?: string; mock?: string };
    },
  ): AgentRun {
    const runId = options.runId ?? options.context.ids.runId();
    const log = RunLog.create(runId, options.store, options.context.clock);
    log.append<"run.started">({
      type: "run.started",
      agent: { name: agent.name, digest: agentDigest(agent) },
      model: { provider: agent.model.provider, model: agent.model.model },
      seed: options.context.seed,
      config: agent.config ?? null,
      ...(options.parent ? { parent: options.parent } : {}),
      ...(options.source ? { source: options.source } : {}),
    });
    return new AgentRun(agent, log, options.context);
  }

  static open(agent: AgentDefinition, runId: string, options: { store: RunStore; context: RunContext }): AgentRun {
    const log = RunLog.open(runId, options.store, options.context.clock);
    if (log.events.length === 0) throw new RunError("run_not_found", "no such run in this store", { runId });
    return new AgentRun(agent, log, options.context);
  }

  get runId(): string {
    return this.log.runId;
  }

  async send(message: string, options: TurnOptions = {}): Promise<TurnOutcome> {
    const status = this.log.state.status;
    if (status === "waiting") {
      throw new RunError("run_waiting", "the run is waiting for an approval; decide it and resume before sending another message", {
        runId: this.runId,
      });
    }
    const firings = this.agent.guardrails?.checkInput(message) ?? [];
    const blocking = firings.filter((firing) => firing.action === "block");
    if (blocking.length > 0) {
      // The message never enters the conversation: a later turn must not see it either.
      this.log.appendAll(firings);
      return this.#finish("failed", {
        code: "guardrail_blocked",
        message: `the input was blocked before any model call: ${blocking.map((firing) => `${firing.rule} (${firing.detail})`).join("; ")}`,
      });
    }
    this.log.appendAll([...firings, { type: "message", role: "user", content: message }]);
    return this.#drive(options);
  }

  /** Continues a paused or interrupted run from its log. */
  async resume(options: TurnOptions = {}): Promise<TurnOutcome> {
    const status = this.log.state.status;
    if (status === "completed" || status === "failed") return this.#outcome();
    if (status === "waiting") this.log.append<"run.resumed">({ type: "run.resumed" });
    return this.#drive(options);
  }

  async #drive(options: TurnOptions): Promise<TurnOutcome> {
    const controller = new AbortController();
    const signal = options.signal ?? controller.signal;
    for (;;) {
      if (signal.aborted) return this.#finish("failed", { code: "aborted", message: "the run was aborted" });
      const batch = await runPendingCalls(this.agent, this.log, this.#context, signal, (tool, task, callId) =>
        runChild(tool, task, this.log, callId, this.#context),
      );
      if (batch.paused) {
        this.log.append<"run.paused">({
          type: "run.paused",
          reason: batch.reason,
          pending: batch.pending,
          ...(batch.reason === "child_waiting" ? { childRunId: batch.childRunId } : {}),
        });
        return this.#outcome();
      }
      if (this.log.state.turnSteps >= this.agent.maxSteps) {
        return this.#finish("failed", {
          code: "max_steps",
          message: `the agent used its ${this.agent.maxSteps} step(s) without finishing the turn`,
        });
      }
      // A crash after the turn's answer was logged but before run.finished: finish it, never re-ask.
      const last = this.log.state.messages.at(-1);
      if (last?.role === "assistant" && last.toolCalls.length === 0 && this.log.state.pendingLlm === undefined) {
        return this.#finish("completed");
      }
      const step = await modelStep({
        agent: this.agent,
        log: this.log,
        seed: this.#context.seed,
        sleep: (ms) => this.#context.clock.sleep(ms),
        signal,
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

  #finish(status: "completed" | "failed", error?: ErrorInfo): TurnOutcome {
    // Calls the turn never got to must not run later, after some other message.
    const unrun = this.log.state.pendingCalls.filter((call) => call.phase === "requested");
    if (unrun.length) {
      this.log.appendAll(
        unrun.map((call) => ({
          type: "tool.failed" as const,
          callId: call.callId,
          name: call.name,
          error: { kind: "not_run" as const, message: `the turn ended (${error?.code ?? status}) before this call ran` },
        })),
      );
    }
    let output = status === "completed" ? this.log.state.output : "";
    if (status === "completed" && this.agent.guardrails) {
      const checked = this.agent.guardrails.checkOutput(output);
      if (checked.firings.length) this.log.appendAll(checked.firings);
      const blocking = checked.firings.filter((firing) => firing.action === "block");
      if (blocking.length > 0) {
        status = "failed";
        output = "";
        error = { code: "guardrail_blocked", message: `the answer was withheld: ${blocking.map((firing) => firing.rule).join(", ")}` };
      } else output = checked.text;
    }
    const state = this.log.state;
    this.log.append<"run.finished">({
      type: "run.finished",
      status,
      output,
      ...(error ? { error } : {}),
      usage: state.usage,
      cost: state.cost,
      steps: state.steps,
    });
    return this.#outcome();
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

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Starts the call's child run, or continues it if the log already has one (after a pause). */
function runChild(tool: SubAgentTool, task: string, parent: RunLog, callId: string, context: RunContext): Promise<TurnOutcome> {
  const runId = childRunId(parent.runId, callId);
  const options = { store: parent.store, context };
  const child = subAgentDefinition(tool);
  if (parent.store.lastSeq(runId) > 0) return AgentRun.open(child, runId, options).resume();
  return AgentRun.start(child, { ...options, runId, parent: { runId: parent.runId, callId } }).send(task);
}
