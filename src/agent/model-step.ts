import { ProviderError, RetraceError } from "../errors/index.js";
import type { EventOf } from "../events/index.js";
import type { RunLog } from "../journal/index.js";
import type { LlmRequest, LlmResponse } from "../providers/model.js";
import { requestKey } from "../providers/request-key.js";
import { toolSpec } from "../tools/index.js";
import type { AgentDefinition } from "./definition.js";

export interface StepEnvironment {
  agent: AgentDefinition;
  log: RunLog;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  onTextDelta?: (delta: string) => void;
  onRetry?: (failure: { attempt: number; message: string; retryInMs: number }) => void;
}

export type StepOutcome = { ok: true; response: LlmResponse } | { ok: false; error: { code: string; message: string } };

export function buildRequest(agent: AgentDefinition, log: RunLog): LlmRequest {
  const sampling = agent.sampling ?? {};
  return {
    model: agent.model.model,
    ...(agent.system !== undefined ? { system: agent.system } : {}),
    messages: log.state.messages,
    tools: agent.tools.map(toolSpec),
    ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    ...(sampling.maxTokens !== undefined ? { maxTokens: sampling.maxTokens } : {}),
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
  };
}

const MAX_BACKOFF_MS = 30_000;

/**
 * One step: ask the model, retrying retryable failures. Every attempt is in the log: an
 * `llm.started` marker before the call, then `llm.finished` or `llm.failed` (with the delay
 * before the next attempt, or null when the agent gives up).
 */
export async function modelStep(env: StepEnvironment): Promise<StepOutcome> {
  const { agent, log } = env;
  const request = buildRequest(agent, log);
  const key = requestKey(agent.model.provider, request);
  const step = log.state.steps + 1;
  const maxRetries = agent.maxRetries ?? 2;
  for (let attempt = 1; ; attempt++) {
    log.append<"llm.started">({ type: "llm.started", step, attempt, requestKey: key, request });
    const startedAt = log.now();
    try {
      const response = await agent.model.generate(request, {
        callIndex: log.state.llmCalls,
        attempt,
        ...(env.signal ? { signal: env.signal } : {}),
        ...(env.onTextDelta ? { onTextDelta: env.onTextDelta } : {}),
      });
      const cost = agent.cost ? agent.cost(agent.model.model, response.usage) : null;
      log.append<"llm.finished">({
        type: "llm.finished",
        step,
        attempt,
        requestKey: key,
        response,
        cost,
        durationMs: Math.max(0, log.now() - startedAt),
      });
      return { ok: true, response };
    } catch (error) {
      const failure = describeFailure(error);
      const retryable = error instanceof ProviderError && error.retryable && attempt <= maxRetries && !env.signal?.aborted;
      const retryInMs = retryable ? backoff(error, attempt, agent.retryBaseMs ?? 500, env.random) : null;
      log.append<"llm.failed">({ type: "llm.failed", step, attempt, requestKey: key, error: failure, retryInMs });
      if (retryInMs === null) return { ok: false, error: { code: failure.code, message: failure.message } };
      env.onRetry?.({ attempt, message: failure.message, retryInMs });
      await env.sleep(retryInMs);
    }
  }
}

function backoff(error: ProviderError, attempt: number, baseMs: number, random: () => number): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, 5 * 60_000);
  const exponential = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (attempt - 1));
  // Jitter comes from the run's seeded random, so a replayed run waits the same.
  return Math.round(exponential * (0.5 + random() / 2));
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
