/** `tool-blocked`: governance stopped a call of the tool before it ran (a `tool.blocked` event). */
import type { BlockReason } from "../src/contracts/index.js";
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describeCalls } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface ToolBlockedOptions {
  tool: string;
  /** The block reason it must have been (rate_limited, policy_denied, mode_blocked, ...). */
  reason?: BlockReason;
}

export const toolBlockedScorer = registerBuiltin(
  defineScorer<ToolBlockedOptions>({
    name: "tool-blocked",
    description: "A call of the tool was blocked before it ran, optionally for a given reason.",
    score({ run, options }) {
      const { tool, reason } = options;
      const blocked = run.toolCalls.filter((call) => call.name === tool && call.status === "blocked");
      // Stryker disable next-line OptionalChaining: equivalent, the run view gives every blocked call its `blocked` reason and detail
      const matching = blocked.filter((call) => reason === undefined || call.blocked?.reason === reason);
      if (matching.length > 0) {
        // Stryker disable next-line OptionalChaining: equivalent, this branch runs only when there is a first match, and the run view gives it `blocked`
        const first = matching[0]?.blocked;
        // Stryker disable next-line OptionalChaining: equivalent, the run view gives every blocked call its `blocked` reason and detail
        return passed(`${tool} was blocked (${first?.reason}: ${first?.detail})`);
      }
      if (blocked.length > 0) {
        // Stryker disable next-line OptionalChaining: equivalent, the run view gives every blocked call its `blocked` reason and detail
        return failed(`${tool} was blocked with ${blocked.map((call) => call.blocked?.reason).join(", ")}, expected ${reason}`);
      }
      const calls = run.toolCalls.filter((call) => call.name === tool);
      if (calls.length > 0) return failed(`${tool} was not blocked: ${describeCalls(calls)}`);
      return failed(`${tool} was never requested, so nothing was blocked; calls: ${describeCalls(run.toolCalls)}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const toolBlockedAssertions = {
  /** Governance stopped a call of the tool before it ran (optionally for a given reason). */
  toolWasBlocked: defineAssertion({
    scorer: "tool-blocked",
    arity: 1,
    options: { reason: z.enum(["rate_limited", "policy_denied", "mode_blocked", "approval_denied", "approval_expired", "guardrail"]) },
    call: ([name]: [name: string], options: { reason?: BlockReason }) => ({
      label: `toolWasBlocked(${brief(name)}${options.reason ? `, ${options.reason}` : ""})`,
      options: { tool: name, ...(options.reason ? { reason: options.reason } : {}) },
    }),
  }),
};
