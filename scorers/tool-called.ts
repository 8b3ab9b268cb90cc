/**
 * `tool-called`: the run called a tool (optionally with matching arguments, a number of times).
 * "Called" means the call ran to completion (`tool.finished`): a call that was blocked or that
 * failed was asked for, not made, and the reason says so.
 */
import { finishedCalls } from "../src/journal/index.js";
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe, describeCalls, describeDifferences, differences, matchesArgs, plural } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface ToolCalledOptions {
  tool: string;
  /** Arguments the call must have; a subset unless `argsMatch: "strict"`. */
  args?: unknown;
  argsMatch?: "partial" | "strict";
  /** Exactly this many matching calls. */
  times?: number;
}

export const toolCalledScorer = registerBuiltin(
  defineScorer<ToolCalledOptions>({
    name: "tool-called",
    description: "The tool was called (ran to completion), optionally with matching arguments and an exact number of times.",
    score({ run, options }) {
      const { tool } = options;
      const finished = finishedCalls(run, tool);
      // Stryker disable next-line StringLiteral: equivalent, matchesArgs compares partially in any mode but "strict" and "ignore"
      const matching = finished.filter((call) => matchesArgs(call.args, options.args, options.argsMatch ?? "partial"));
      const withArgs = options.args === undefined ? "" : ` with ${options.argsMatch === "strict" ? "arguments" : "arguments matching"} ${describe(options.args, 80)}`;
      if (matching.length > 0 && (options.times === undefined || matching.length === options.times)) {
        return passed(`${tool} was called${withArgs} ${plural(matching.length, "time")}`);
      }
      if (matching.length > 0) {
        return failed(`${tool} was called${withArgs} ${plural(matching.length, "time")}, expected ${options.times}`);
      }
      const requested = run.toolCalls.filter((call) => call.name === tool);
      if (requested.length > 0 && finished.length === 0) {
        return failed(`${tool} was requested ${plural(requested.length, "time")} but never ran to completion: ${describeCalls(requested)}`);
      }
      if (finished.length > 0) {
        // The call nearest to what was expected (fewest differences), and where it differs.
        const mode = options.argsMatch === "strict" ? "strict" : "partial";
        const nearest = finished
          .map((call) => ({ call, found: differences(options.args, call.args, mode, 50) }))
          .sort((a, b) => a.found.length - b.found.length)[0];
        const diff = nearest ? `; the nearest, ${nearest.call.callId}, differs ${describeDifferences(nearest.found.slice(0, 3))}` : "";
        return failed(`no call of ${tool} had arguments matching ${describe(options.args, 80)}${diff}; calls: ${describeCalls(finished)}`, {
          expected: options.args,
          // Stryker disable next-line OptionalChaining: equivalent, some call finished in this branch, so there is a nearest one
          actual: nearest?.call.args,
          // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, some call finished in this branch, so there is a nearest one and the fallback is never used
          differences: nearest?.found.slice(0, 3) ?? [],
        });
      }
      return failed(`${tool} was never called; calls: ${describeCalls(run.toolCalls)}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const toolCalledAssertions = {
  /** The tool ran to completion at least once (a blocked or failed call does not count). */
  calledTool: defineAssertion({
    scorer: "tool-called",
    arity: 1,
    options: { times: z.number().int().nonnegative() },
    call: ([name]: [name: string], options: { times?: number }) => ({
      label: `calledTool(${brief(name)})`,
      options: { tool: name, ...(options.times !== undefined ? { times: options.times } : {}) },
    }),
  }),
  /** The tool ran to completion with arguments matching `args` (a subset, or exactly with `strict`). */
  calledToolWith: defineAssertion({
    scorer: "tool-called",
    arity: 2,
    options: { strict: z.boolean(), times: z.number().int().nonnegative() },
    call: ([name, args]: [name: string, args: Record<string, unknown>], options: { strict?: boolean; times?: number }) => ({
      label: `calledToolWith(${brief(name)}, ${brief(args)})`,
      options: {
        tool: name,
        args,
        argsMatch: options.strict ? "strict" : "partial",
        ...(options.times !== undefined ? { times: options.times } : {}),
      },
    }),
  }),
};
