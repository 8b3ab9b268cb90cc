/** `guardrail`: a guardrail fired with the given action (block / warn / redact), optionally a given rule and direction. */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface GuardrailOptions {
  action: "block" | "warn" | "redact";
  rule?: string;
  direction?: "input" | "output";
}

export const guardrailScorer = registerBuiltin(
  defineScorer<GuardrailOptions>({
    name: "guardrail",
    description: "A guardrail event with the given action (and rule, direction) is in the run log.",
    score({ run, options }) {
      const hit = run.guardrails.find(
        (event) =>
          event.action === options.action &&
          (options.rule === undefined || event.rule === options.rule) &&
          (options.direction === undefined || event.direction === options.direction),
      );
      const wanted = `${options.direction ? `${options.direction} ` : ""}guardrail ${options.action}${options.rule ? ` by ${options.rule}` : ""}`;
      if (hit) return passed(`${hit.direction} ${hit.action} by ${hit.rule}: ${hit.detail}`);
      const seen = run.guardrails.map((event) => `${event.direction} ${event.action} by ${event.rule}`).join(", ");
      return failed(`expected a ${wanted}; guardrail events: ${seen || "none"}`);
    },
  }),
);

type GuardrailFilter = { rule?: string; direction?: "input" | "output" };
const filterOptions = { rule: z.string(), direction: z.enum(["input", "output"]) };

function guardrailCall(action: "block" | "warn", method: string, options: GuardrailFilter) {
  return {
    label: `${method}(${options.rule ? brief(options.rule) : ""})`,
    options: { action, ...(options.rule ? { rule: options.rule } : {}), ...(options.direction ? { direction: options.direction } : {}) },
  };
}

/** The `t` assertions this scorer offers. */
export const guardrailAssertions = {
  /** A guardrail blocked (input or output, optionally a given rule). */
  blocked: defineAssertion({ scorer: "guardrail", arity: 0, options: filterOptions, call: (_: [], options: GuardrailFilter) => guardrailCall("block", "blocked", options) }),
  /** A guardrail warned. */
  warned: defineAssertion({ scorer: "guardrail", arity: 0, options: filterOptions, call: (_: [], options: GuardrailFilter) => guardrailCall("warn", "warned", options) }),
};
