import { identityOf, type GenerateOptions, type LanguageModel, type LlmRequest, type LlmResponse, type ModelIdentity } from "../contracts/index.js";
import { ProviderError, RetraceError, type ProviderErrorKind } from "../errors/index.js";
import { requestKey } from "../keys/index.js";
import type { RecordedAttempt, RecordedRun } from "./recording.js";

/** Where a model request first left the recording. */
export interface RequestDivergence {
  runId: string;
  /** 0-based model call of that run. */
  callIndex: number;
  expected: LlmRequest | undefined;
  actual: LlmRequest;
  expectedKey: string | undefined;
  actualKey: string;
}

/** What a replay model does once a run's request leaves the recording. */
export interface Continuation {
  /**
   * Answers the run's calls from its divergence on; `sinceDivergence` counts them from 0, and
   * `configured` is the model the agent (or sub-agent) making the call is configured with.
   */
  generate(request: LlmRequest, options: GenerateOptions, sinceDivergence: number, divergedAt: RequestDivergence, configured: LanguageModel): Promise<LlmResponse>;
}

/** The replay stopped a run at a request the recording does not hold (strict replay). */
export class ReplayDivergedError extends RetraceError {
  constructor(message: string, place: { runId?: string }) {
    super("replay_diverged", message, place);
  }
}

export interface ReplaySession {
  /** The recorded run for a run of the replay (the replay may run under another id). */
  recordedRun(runId: string): RecordedRun | undefined;
  /** Request divergences, in the order they happened. */
  readonly divergences: RequestDivergence[];
  continuation?: Continuation;
}

/**
 * The model of a run-level replay: it answers each call with the response the recording holds
 * for the same run and call, after checking that the request is the recorded one (same request
 * key and same normalised request). It takes the identity of the model the agent is configured
 * with, so a changed base URL or sampling default changes the keys as it would live.
 */
export function replayModel(configured: LanguageModel, session: ReplaySession): LanguageModel {
  const identity: ModelIdentity = identityOf(configured);
  const diverged = new Map<string, { at: RequestDivergence; calls: number }>();
  return {
    provider: configured.provider,
    model: configured.model,
    identity,
    async generate(request, options) {
      const runId = options.runId ?? "";
      const already = diverged.get(runId);
      if (already) return continueRun(session, already, request, options, configured);
      const recording = session.recordedRun(runId);
      const attempt: RecordedAttempt | undefined = recording?.attempts[options.callIndex];
      const actualKey = options.requestKey ?? requestKey(identity, request);
      const expected = attempt?.started;
      // The key covers everything that decides the answer; anything else that differs shows in the log comparison.
      if (!expected || expected.requestKey !== actualKey || !attempt.outcome) {
        const at: RequestDivergence = {
          runId,
          callIndex: options.callIndex,
          expected: expected?.request,
          actual: request,
          expectedKey: expected?.requestKey,
          actualKey,
        };
        session.divergences.push(at);
        const state = { at, calls: 0 };
        diverged.set(runId, state);
        return continueRun(session, state, request, options, configured);
      }
      return serve(attempt, configured.provider);
    },
  };
}

function continueRun(
  session: ReplaySession,
  state: { at: RequestDivergence; calls: number },
  request: LlmRequest,
  options: GenerateOptions,
  configured: LanguageModel,
): Promise<LlmResponse> {
  if (!session.continuation) {
    const why =
      state.at.expected === undefined
        ? `the recording holds no model call #${state.at.callIndex + 1} for this run`
        : state.at.expectedKey !== state.at.actualKey
          ? `model call #${state.at.callIndex + 1} sends a request that differs from the recorded one`
          : `model call #${state.at.callIndex + 1} was never answered in the recording`;
    return Promise.reject(new ReplayDivergedError(`replay diverged: ${why}`, { runId: state.at.runId }));
  }
  const index = state.calls++;
  return session.continuation.generate(request, options, index, state.at, configured);
}

const KINDS: ReadonlySet<string> = new Set(["auth", "not_found", "bad_request", "rate_limited", "server", "timeout", "connection", "invalid_response", "missing_key", "script_exhausted"]);

/** The recorded answer, or the recorded failure thrown again so the agent logs and retries it as it did. */
function serve(attempt: RecordedAttempt, provider: string): Promise<LlmResponse> {
  const outcome = attempt.outcome;
  if (outcome?.type === "llm.finished") return Promise.resolve(structuredClone(outcome.response));
  const error = (outcome as Extract<RecordedAttempt["outcome"], { type: "llm.failed" }>).error;
  if (KINDS.has(error.kind) && error.code === `provider_${error.kind}`) {
    return Promise.reject(
      new ProviderError(error.kind as ProviderErrorKind, error.message, {
        provider,
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      }),
    );
  }
  if (error.code === "provider_unexpected") return Promise.reject(new Error(error.message));
  return Promise.reject(new RetraceError(error.code, error.message));
}
