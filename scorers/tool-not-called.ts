/** `tool-not-called`: the run never called the tool (a blocked or failed request is not a call). */
import { finishedCalls } from "../src/journal/index.js";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describeCalls, plural } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";

export interface ToolNotCalledOptions {
  tool: string;
}

export const toolNotCalledScorer = registerBuiltin(
  defineScorer<ToolNotCalledOptions>({
    name: "tool-not-called",
    description: "The tool never ran to completion in the run.",
    score({ run, options }) {
      const calls = finishedCalls(run, options.tool);
      if (calls.length > 0) return failed(`${options.tool} was called ${plural(calls.length, "time")}: ${describeCalls(calls)}`);
      const attempts = run.toolCalls.filter((call) => call.name === options.tool);
      return passed(
        attempts.length ? `${options.tool} was requested but never ran (${describeCalls(attempts)})` : `${options.tool} was never called`,
      );
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const toolNotCalledAssertions = {
  notCalledTool: defineAssertion({
    scorer: "tool-not-called",
    arity: 1,
    options: {},
    call: ([name]: [name: string], _options: object) => ({ label: `notCalledTool(${brief(name)})`, options: { tool: name } }),
  }),
};
