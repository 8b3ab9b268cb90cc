import { digest, frozenDigest } from "../canonical/index.js";
import type { LlmRequest } from "../contracts/index.js";

/**
 * What determines a model's answer, and nothing else: never credentials or SDK headers.
 * Replay finds recorded responses by this key (plus an ordinal for repeated requests).
 */
export function requestKey(provider: string, request: LlmRequest): string {
  // The tool list is the bulk of a request and the same on every step: it enters by its digest.
  return digest({ provider, request: { ...request, tools: frozenDigest(request.tools) } });
}
