/**
 * `tool-trajectory`: the run's tool calls against an expected list.
 *
 * - `ordered`: the calls in this order; with `allowExtra`, other calls may come between them.
 * - `unordered`: the same calls in any order; with `allowExtra`, more calls may come too.
 * - `subset`: every call the run made is one of the expected calls (nothing outside the list).
 * - `superset`: every expected call was made, in any order, whatever else was.
 *
 * Arguments are compared only where an expected entry gives them: `strict` (deep equality),
 * `partial` (the expected arguments are a subset, the default) or `ignore`. Only calls that
 * finished count, unless `include: "requested"`.
 */
import { finishedCalls } from "../src/journal/index.js";
import { type ToolCallView } from "../src/contracts/index.js";
import { z } from "zod";
import { defineScorer, scored } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe, describeCalls, matchesArgs } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";

export type ExpectedCall = string | { name: string; args?: unknown };

export interface ToolTrajectoryOptions {
  order?: "ordered" | "unordered" | "subset" | "superset";
  args?: "strict" | "partial" | "ignore";
  allowExtra?: boolean;
  /** Which calls count: "finished" (ran to completion, the default) or every "requested" call. */
  include?: "finished" | "requested";
}

/**
 * The `order` for a sequence written as `ordered` / `allowExtra` (t.toolSequence and the
 * vitest matcher): unordered with extras allowed is a superset.
 */
export function sequenceOrder(ordered: boolean, allowExtra: boolean): NonNullable<ToolTrajectoryOptions["order"]> {
  return ordered ? "ordered" : allowExtra ? "superset" : "unordered";
}

function normalise(expected: unknown): { name: string; args?: unknown }[] {
  if (!Array.isArray(expected)) throw new TypeError("tool-trajectory needs an array of tool names or { name, args } as expected");
  return expected.map((entry: unknown) => {
    if (typeof entry === "string") return { name: entry };
    if (entry !== null && typeof entry === "object" && typeof (entry as { name?: unknown }).name === "string") return entry as { name: string; args?: unknown };
    throw new TypeError(`tool-trajectory: ${describe(entry)} is neither a tool name nor { name, args }`);
  });
}

function label(entry: { name: string; args?: unknown }): string {
  return entry.args === undefined ? entry.name : `${entry.name}(${describe(entry.args, 60)})`;
}

export const toolTrajectoryScorer = registerBuiltin(
  defineScorer<ToolTrajectoryOptions>({
    name: "tool-trajectory",
    options: {
      order: z.enum(["ordered", "unordered", "subset", "superset"]),
      args: z.enum(["strict", "partial", "ignore"]),
      allowExtra: z.boolean(),
      include: z.enum(["finished", "requested"]),
    },
    description: "The run's tool calls match an expected trajectory (ordered, unordered, subset or superset; arguments strict, partial or ignored).",
    score({ run, expected, options }) {
      const wanted = normalise(expected);
      const order = options.order ?? "ordered";
      // Stryker disable next-line StringLiteral: equivalent, matchesArgs compares partially in any mode but "strict" and "ignore"
      const argsMode = options.args ?? "partial";
      const allowExtra = options.allowExtra ?? false;
      const actual = options.include === "requested" ? run.toolCalls : finishedCalls(run);
      const fits = (call: ToolCallView, entry: { name: string; args?: unknown }) =>
        call.name === entry.name && matchesArgs(call.args, entry.args, argsMode);
      const got = actual.length ? actual.map((call) => label({ name: call.name, args: argsMode === "ignore" ? undefined : call.args })).join(", ") : "no calls";
      const want = wanted.map(label).join(", ") || "no calls";

      if (order === "subset") {
        const outside = actual.filter((call) => !wanted.some((entry) => fits(call, entry)));
        // Stryker disable next-line ConditionalExpression: equivalent, with no calls nothing is outside, so the run passes and this value is never read
        const value = actual.length === 0 ? 1 : (actual.length - outside.length) / actual.length;
        return outside.length === 0
          ? scored(1, true, `every call is among [${want}]`)
          : scored(value, false, `calls outside [${want}]: ${describeCalls(outside)}`);
      }

      if (order === "ordered") {
        // Greedy in-order matching finds the longest prefix of expected calls present as a subsequence.
        let matched = 0;
        let position = 0;
        for (const entry of wanted) {
          let index = position;
          while (index < actual.length && !fits(actual[index] as ToolCallView, entry)) index++;
          if (index >= actual.length) break;
          matched++;
          position = index + 1;
        }
        const extra = actual.length - matched;
        const pass = matched === wanted.length && (allowExtra || extra === 0);
        const denominator = allowExtra ? wanted.length : Math.max(wanted.length, actual.length);
        // Stryker disable next-line ConditionalExpression: equivalent, a zero denominator means nothing expected and nothing extra counted, which passes, so this value is never read
        const value = denominator === 0 ? 1 : matched / denominator;
        return pass
          ? scored(1, true, `calls in order: ${got}`)
          : scored(
              value,
              false,
              matched < wanted.length
                ? `expected calls in order [${want}]; got [${got}] (first missing: ${label(wanted[matched] as { name: string })})`
                : `expected exactly [${want}] in order; got [${got}]`,
            );
      }

      // unordered and superset: match each expected call to a distinct actual call — a maximum
      // matching, so the order the expected entries are written in never changes the verdict.
      const assigned = maximumMatching(wanted, actual, fits);
      const used = new Set(assigned.filter((index) => index >= 0));
      const missing = wanted.filter((_, position) => (assigned[position] as number) < 0);
      const extras = actual.filter((_, position) => !used.has(position));
      const strictCount = order === "unordered" && !allowExtra;
      const pass = missing.length === 0 && (!strictCount || extras.length === 0);
      const denominator = strictCount ? Math.max(wanted.length, actual.length) : wanted.length;
      // Stryker disable next-line ConditionalExpression: equivalent, a zero denominator means nothing expected (and, where counted, nothing made), which passes, so this value is never read
      const value = denominator === 0 ? 1 : used.size / denominator;
      if (pass) return scored(1, true, `calls [${got}] cover [${want}]`);
      const problems = [
        missing.length ? `missing ${missing.map(label).join(", ")}` : "",
        strictCount && extras.length ? `unexpected ${describeCalls(extras)}` : "",
      ].filter(Boolean);
      return scored(value, false, `expected [${want}] in any order; got [${got}]: ${problems.join("; ")}`);
    },
  }),
);

/**
 * A maximum bipartite matching of expected entries to actual calls (Kuhn's augmenting paths):
 * for each expected entry, the index of its call, or -1. First-fit would let an entry that
 * fits many calls take the one a stricter entry needed.
 */
function maximumMatching<E, C>(wanted: readonly E[], actual: readonly C[], fits: (call: C, entry: E) => boolean): number[] {
  const edges = wanted.map((entry) => actual.flatMap((call, index) => (fits(call, entry) ? [index] : [])));
  const owner = new Array<number>(actual.length).fill(-1);
  const assigned = new Array<number>(wanted.length).fill(-1);
  const augment = (entry: number, visited: boolean[]): boolean => {
    for (const call of edges[entry] as number[]) {
      if (visited[call]) continue;
      visited[call] = true;
      const holder = owner[call] as number;
      if (holder < 0 || augment(holder, visited)) {
        owner[call] = entry;
        assigned[entry] = call;
        return true;
      }
    }
    return false;
  };
  // Stryker disable next-line ArrayDeclaration: equivalent, augment reads a missing entry as not visited
  for (let entry = 0; entry < wanted.length; entry++) augment(entry, new Array<boolean>(actual.length).fill(false));
  return assigned;
}

/** The `t` assertions this scorer offers. */
export const toolTrajectoryAssertions = {
  /**
   * The finished calls, as a trajectory. Default: exactly these, in this order. `allowExtra`
   * lets other calls in between (ordered) or besides (unordered); `args` compares arguments
   * where an entry gives them ("partial" by default).
   */
  toolSequence: defineAssertion({
    scorer: "tool-trajectory",
    arity: 1,
    options: { ordered: z.boolean(), allowExtra: z.boolean(), args: z.enum(["strict", "partial", "ignore"]) },
    call: ([calls]: [calls: readonly ExpectedCall[]], options: { ordered?: boolean; allowExtra?: boolean; args?: "strict" | "partial" | "ignore" }) => {
      const ordered = options.ordered ?? true;
      const allowExtra = options.allowExtra ?? false;
      return {
        label: `toolSequence([${calls.map((call) => (typeof call === "string" ? call : call.name)).join(", ")}]${ordered ? "" : ", unordered"}${allowExtra ? ", allowExtra" : ""})`,
        options: { order: sequenceOrder(ordered, allowExtra), allowExtra, args: options.args ?? "partial" },
        expected: calls,
      };
    },
  }),
};
