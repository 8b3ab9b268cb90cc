/** `no-tools`: the model asked for no tool at all (a blocked or failed request still counts as asking). */
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describeCalls } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";

export const noToolsScorer = registerBuiltin(
  defineScorer<Record<string, never>>({
    name: "no-tools",
    description: "The model requested no tool calls.",
    score({ run }) {
      return run.toolCalls.length === 0 ? passed("no tool was requested") : failed(`expected no tool calls; the model requested ${describeCalls(run.toolCalls)}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const noToolsAssertions = {
  /** The model asked for no tool at all. */
  usedNoTools: defineAssertion({
    scorer: "no-tools",
    arity: 0,
    options: {},
    call: (_: [], _options: object) => ({ label: "usedNoTools()", options: {} }),
  }),
};
