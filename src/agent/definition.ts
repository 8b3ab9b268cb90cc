import type { JsonValue } from "../canonical/index.js";
import type { LanguageModel, Usage, ErrorInfo, EventOf, EventPayload, RetrievedChunk } from "../contracts/index.js";
import type { AnyTool } from "../tools/index.js";
import type { CallGate } from "./gate.js";

/** Checks on user input and final answers; every firing becomes a `guardrail` event. */
export interface GuardrailChecks {
  /** Any firing with action "block" ends the turn before the model is called. */
  checkInput(text: string): EventPayload<"guardrail">[];
  /** The answer as the user should get it (redacted), and the firings. */
  checkOutput(text: string): { text: string; firings: EventPayload<"guardrail">[] };
}

/** What an agent needs to augment its turns (see augment.ts); built from config, or by hand in code. */
export interface AugmentRetrieval {
  retriever: { search(query: string, options: { topK: number; minScore?: number }): Promise<RetrievedChunk[]> };
  topK: number;
  minScore?: number;
  /** The system prompt: {{system}} is the agent's own, {{context}} the numbered passages. Default DEFAULT_AUGMENT_TEMPLATE. */
  template?: string;
}

export interface Sampling {
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

/** Everything that decides how an agent behaves. Built from YAML config or in code. */
export interface AgentDefinition {
  name: string;
  system?: string;
  /** Model calls allowed per user turn. */
  maxSteps: number;
  model: LanguageModel;
  tools: readonly AnyTool[];
  sampling?: Sampling;
  /** Retries of a retryable provider failure (429, 5xx, timeout), each one logged. */
  maxRetries?: number;
  /** Backoff before retry n (1-based) when the provider sends no retry-after. */
  retryBaseMs?: number;
  /**
   * Interrupted attempts (the process stopped during the call) one step survives; the resume
   * that finds one more ends the run with `llm_interrupted`. Default 3. They use none of
   * `maxRetries`, which counts the provider's failures.
   */
  maxInterruptions?: number;
  /** Price of one model call in US dollars, or null when unknown. */
  cost?: (model: string, usage: Usage) => number | null;
  /** Decides, before anything runs, whether each call of a batch may run (policy, approvals). */
  gate?: CallGate;
  guardrails?: GuardrailChecks;
  /** The configuration as recorded in `run.started`, secrets already redacted. */
  config?: JsonValue;
  /** Retrieve before each user turn's model call and put the chunks into the request (see augment.ts). */
  retrieval?: AugmentRetrieval;
  /** What the run log removes from every event: known key values, and credential-looking text unless `patterns` is false. */
  redaction?: { secrets: readonly string[]; patterns?: boolean };
}

export interface TurnOutcome {
  runId: string;
  status: "completed" | "failed" | "waiting";
  output: string;
  error?: ErrorInfo;
  /** Calls waiting for a decision when status is "waiting" (`runId` set when a child run holds it). */
  pending: EventOf<"run.paused">["pending"];
  /** When the run waits on a sub-agent: the child run that holds the pending decisions. */
  childRunId?: string;
}
