import { ProviderError, RetraceError } from "../errors/index.js";
import { deepFreeze, digest } from "../canonical/index.js";
import { identityOf, type EventOf, type GenerateOptions, type LlmRequest, type LlmResponse, type ToolSpec } from "../contracts/index.js";
import { RunLog, type LogPayload } from "../store/index.js";
import { requestKey } from "../keys/index.js";
import { scrubbedStream } from "../redaction/index.js";
import { toolSpecs } from "../tools/index.js";
import type { AgentDefinition } from "./definition.js";
import { augmentedSystem } from "./augment.js";
import { offerSignal, type Cancellation } from "./cancellation.js";

export interface StepEnvironment {
  agent: AgentDefinition;
  log: RunLog;
  seed: number;
  sleep: (ms: number) => Promise<void>;
  cancel?: Cancellation;
  onTextDelta?: (delta: string) => void;
  onRetry?: (failure: { attempt: number; message: string; retryInMs: number }) => void;
}

/** A model answer, not yet in the log: the caller writes it together with the calls it asks for (the log adds its duration). */
export type StepOutcome =
  | { ok: true; finished: Extract<LogPayload, { type: "llm.finished" }> }
  | { ok: false; error: { code: string; message: string } };

export function buildRequest(agent: AgentDefinition, log: RunLog): LlmRequest {
  const sampling = agent.sampling ?? {};
  const system = augmentedSystem(agent, log.events);
  return {
    model: agent.model.model,
    ...(system !== undefined ? { system } : {}),
    messages: log.state.messages,
    tools: toolSpecs(agent.tools) as ToolSpec[],
    ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    ...(sampling.maxTokens !== undefined ? { maxTokens: sampling.maxTokens } : {}),
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
  };
}

const MAX_BACKOFF_MS = 30_000;

/**
 * One step: ask the model, retrying retryable failures. Every attempt is in the log: an
 * `llm.started` marker before the call, then `llm.failed` (with the delay before the next
 * attempt, or null when the agent gives up) — or the answer, which the caller logs as
 * `llm.finished` in one append with the calls it asks for.
 *
 * The step continues from the log, so a resumed run makes exactly the calls the
 * uninterrupted run would have, and the log says so truthfully (docs/durability.md):
 * - an attempt whose marker is logged but whose outcome is not (the process stopped during
 *   the call) is closed with `llm.interrupted` and asked again as the next attempt, with the
 *   same request; the provider may have received the interrupted one;
 * - after a logged failure the step waits its logged delay and makes the next attempt;
 * - a failure that gave up ends the step with that failure.
 * Only attempts with an outcome are tries: the retry budget, the backoff and its jitter, and
 * where a scripted model stands, count them, so an interruption changes none of what follows.
 * Interruptions have a budget of their own, so a call that kills its process every time ends
 * the run instead of being asked for ever.
 */
export async function modelStep(env: StepEnvironment): Promise<StepOutcome> {
  const { agent, log, cancel } = env;
  // Built when an attempt needs a new marker: an interrupted attempt is asked again with the
  // request and key its marker holds, so a resume does not rebuild (and rehash) the conversation.
  let built: { request: LlmRequest; key: string } | undefined;
  const fresh = () => {
    if (!built) {
      const request = buildRequest(agent, log);
      built = { request, key: requestKey(identityOf(agent.model), request) };
    }
    return built;
  };
  const step = log.state.steps + 1;
  const maxRetries = agent.maxRetries ?? 2;
  const interrupted = log.state.pendingLlm?.step === step ? log.state.pendingLlm : undefined;
  if (interrupted) {
    const closed = closeInterrupted(agent, log, interrupted);
    if (closed) return closed;
    built = { request: interrupted.request, key: interrupted.requestKey };
  } else {
    const failure = log.state.stepFailure;
    // A failure that is the step's last attempt: its backoff may not have been waited out.
    if (failure && failure.attempt === log.state.stepAttempts.last) {
      if (failure.retryInMs === null) return { ok: false, error: { code: failure.error.code, message: failure.error.message } };
      await env.sleep(failure.retryInMs);
    }
  }
  for (let attempt = log.state.stepAttempts.last + 1; ; attempt++) {
    const started = log.append<"llm.started">({ type: "llm.started", step, attempt, requestKey: fresh().key, request: fresh().request });
    const interruptions = log.state.stepAttempts.interrupted;
    // This attempt's place among the step's attempts that had an outcome.
    const tryNumber = attempt - interruptions;
    // The provider's "now" (an HTTP-date retry-after) is the attempt's logged start.
    const startedAt = RunLog.timeOf(started);
    // Streamed text reaches the caller (a terminal) before the event that records it: it is
    // scrubbed as the log scrubs it, and what an attempt held back is passed on when it ends.
    const stream = env.onTextDelta ? scrubbedStream(agent.redaction ?? {}, env.onTextDelta) : undefined;
    try {
      // The model gets the logged request itself, frozen: an edit of it cannot rewrite the log.
      deepFreeze(started.request.messages);
      const options: GenerateOptions = {
        callIndex: log.state.llmCalls,
        runId: log.runId,
        requestKey: started.requestKey,
        attempt,
        ...(interruptions > 0 ? { interrupted: interruptions } : {}),
        now: () => startedAt,
        ...(stream ? { onTextDelta: (delta: string) => stream.push(delta) } : {}),
      };
      // Made when a model reads it (a provider's request takes it); a scripted model never does.
      if (cancel) offerSignal(options, cancel);
      const response = await agent.model.generate(started.request, options);
      stream?.end();
      const answer = withUniqueCallIds(response, log);
      // Unknown usage is an unknown cost, never $0.
      const cost = agent.cost && answer.usage ? agent.cost(agent.model.model, answer.usage) : null;
      return { ok: true, finished: { type: "llm.finished", step, attempt, requestKey: started.requestKey, response: answer, cost } };
    } catch (error) {
      stream?.end();
      const failure = describeFailure(error);
      const retryable = error instanceof ProviderError && error.retryable && tryNumber <= maxRetries && !cancel?.aborted;
      const retryInMs = retryable ? backoff(error, tryNumber, agent.retryBaseMs ?? 500, jitter(env.seed, log.runId, step, tryNumber)) : null;
      log.append<"llm.failed">({ type: "llm.failed", step, attempt, requestKey: started.requestKey, error: failure, retryInMs });
      if (retryInMs === null) return { ok: false, error: { code: failure.code, message: failure.message } };
      env.onRetry?.({ attempt, message: failure.message, retryInMs });
      await env.sleep(retryInMs);
    }
  }
}

/** How many interrupted attempts of one step a run survives by default. */
export const DEFAULT_MAX_INTERRUPTIONS = 3;

/**
 * Closes an attempt the process stopped during. Returns the step's failure when the step has
 * now been interrupted as often as the agent allows: a call that kills its process every time
 * must end the run, not be asked again by every resume.
 */
function closeInterrupted(agent: AgentDefinition, log: RunLog, started: EventOf<"llm.started">): StepOutcome | undefined {
  log.append<"llm.interrupted">({ type: "llm.interrupted", step: started.step, attempt: started.attempt, requestKey: started.requestKey });
  const limit = agent.maxInterruptions ?? DEFAULT_MAX_INTERRUPTIONS;
  const count = log.state.stepAttempts.interrupted;
  if (count < limit) return undefined;
  return {
    ok: false,
    error: {
      code: "llm_interrupted",
      message:
        `the model call of step ${started.step} was interrupted ${count} time(s): the process stopped during each attempt, ` +
        `so it is not asked again (maxInterruptions is ${limit})`,
    },
  };
}

function backoff(error: ProviderError, attempt: number, baseMs: number, jitterFraction: number): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, 5 * 60_000);
  const exponential = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(exponential * (0.5 + jitterFraction / 2));
}

/**
 * Jitter in [0, 1) derived from the seed and the try's place in the run, not drawn from a
 * shared generator: a resumed run, or child runs retrying at the same time, get the same value
 * the original run got — an interrupted attempt in between changes nothing.
 */
function jitter(seed: number, runId: string, step: number, tryNumber: number): number {
  // Keyed "attempt" as it always was: for a step without interruptions the two are equal.
  return Number.parseInt(digest({ seed, runId, step, attempt: tryNumber }).slice(0, 8), 16) / 0x1_0000_0000;
}

/**
 * Tool-call ids must be unique in a run: results are matched to calls by id, and approvals are
 * bound to it. A repeated id (within the answer or from an earlier step) gets a suffix here,
 * before the answer is logged, so the log and every later request agree on it.
 */
function withUniqueCallIds(response: LlmResponse, log: RunLog): LlmResponse {
  const taken = new Set<string>();
  for (const message of log.state.messages) if (message.role === "assistant") for (const call of message.toolCalls) taken.add(call.id);
  let changed = false;
  const toolCalls = response.toolCalls.map((call) => {
    let id = call.id;
    for (let n = 2; taken.has(id); n++) id = `${call.id}_${n}`;
    taken.add(id);
    if (id === call.id) return call;
    changed = true;
    return { ...call, id };
  });
  return changed ? { ...response, toolCalls } : response;
}

function describeFailure(error: unknown): EventOf<"llm.failed">["error"] {
  if (error instanceof ProviderError) {
    return {
      code: error.code,
      kind: error.kind,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    };
  }
  if (error instanceof RetraceError) return { code: error.code, kind: error.code, message: error.describe() };
  return { code: "provider_unexpected", kind: "unexpected", message: error instanceof Error ? error.message : String(error) };
}
