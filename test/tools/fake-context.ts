import type { RetrievedChunk } from "../../src/contracts/index.js";
import type { ToolContext } from "../../src/tools/index.js";

export interface RecordedRetrieval {
  query: string;
  chunks: RetrievedChunk[];
}

/** A ToolContext for calling a tool directly, keeping what the tool recorded. */
export function fakeContext(): ToolContext & { readonly retrievals: RecordedRetrieval[] } {
  const retrievals: RecordedRetrieval[] = [];
  return {
    runId: "run_test",
    callId: "call_1",
    signal: new AbortController().signal,
    now: () => Date.UTC(2026, 0, 1),
    recordRetrieval: (query, chunks) => retrievals.push({ query, chunks }),
    retrievals,
  };
}
