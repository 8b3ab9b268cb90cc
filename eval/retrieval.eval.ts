// Retrieval: search_docs runs for real over eval/docs; each search is a `retrieval` event.
import { defineEval } from "retrace-agents";

defineEval({
  name: "retrieval: finds the request-key passage",
  config: "./agents/docs.yaml",
  mock: {
    responses: [
      { tool_calls: [{ name: "search_docs", arguments: { query: "request key sha256", k: 2 } }] },
      { text: "A request key is the sha256 of the canonical request (see replay.md)." },
    ],
  },
  tags: ["smoke", "retrieval"],
  test: async (t) => {
    await t.send("How are recorded model requests identified?");
    t.calledTool("search_docs");
    t.retrievedChunk("canonical JSON of what");
    t.retrievedChunk({ source: "replay.md", maxRank: 1 });
    t.outputContains("replay.md");
  },
});

defineEval({
  name: "retrieval: eval questions retrieve the eval docs",
  config: "./agents/docs.yaml",
  mock: {
    responses: [
      { tool_calls: [{ name: "search_docs", arguments: { query: "mock script runs out" } }] },
      { text: "Under --mock, a script that runs out fails the case (evals.md)." },
    ],
  },
  tags: ["retrieval"],
  test: async (t) => {
    await t.send("What happens when a mock script runs out?");
    t.retrievedChunk({ text: "script that runs out", source: "evals.md" });
    t.toolSequence(["search_docs"]);
    t.outputContains("fails the case", { caseSensitive: false });
  },
});
