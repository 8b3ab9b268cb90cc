/**
 * The built-in scorers register themselves when their module loads. Imported inside the test,
 * not at the top of the file, so that a module that fails to load fails this test.
 */
import { describe, expect, it } from "vitest";

describe("the built-in scorers", () => {
  it("all load and register under their names", async () => {
    const { listScorers, getScorer } = await import("../../scorers/index.js");
    const names = [
      "abstains",
      "budgets",
      "citations",
      "exact",
      "gaia-exact",
      "guardrail",
      "includes",
      "json-schema",
      "llm-judge",
      "no-tools",
      "numeric",
      "ranking",
      "regex",
      "retrieved-chunk",
      "run-status",
      "similarity",
      "tool-blocked",
      "tool-called",
      "tool-not-called",
      "tool-trajectory",
    ];
    expect(listScorers().map((scorer) => scorer.name)).toEqual(names);
    for (const name of names) expect(getScorer(name).name).toBe(name);
  });

  it("each describe themselves in a sentence", async () => {
    const { listScorers } = await import("../../scorers/index.js");
    for (const scorer of listScorers()) expect(scorer.description, scorer.name).toMatch(/^[A-Z].{20,}\.$/);
  });
});
