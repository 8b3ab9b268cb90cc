/**
 * A case's tool mocks: a fixed result, a list of results in order, an error, a function, or a
 * whole tool defined with defineTool. A mock replaces the tool's run, never its schema, so the
 * agent sees the same tool it has outside the eval.
 */
import { EvalDefinitionError } from "../../errors/index.js";
import type { AnyTool, ToolContext } from "../../tools/index.js";
import { isTool, placeOf, type EvalCase, type ToolMock } from "../dsl/index.js";

/** What a case's setup may report while the case runs. */
export interface CaseHooks {
  /** Fails the case (not just a call): e.g. a tool mock asked for more results than it holds. */
  fail(message: string): void;
}

export function applyToolMocks(tools: readonly AnyTool[], spec: EvalCase, hooks: CaseHooks | undefined): AnyTool[] {
  const mocks = spec.tools;
  if (!mocks) return tools as AnyTool[];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const result = [...tools];
  for (const [name, mock] of Object.entries(mocks)) {
    if (isTool(mock)) {
      if (mock.name !== name) {
        throw new EvalDefinitionError(`case "${spec.name}": tools.${name} is a tool named "${mock.name}"; use the tool's own name as the key`, placeOf(spec));
      }
      const index = result.findIndex((tool) => tool.name === name);
      if (index >= 0) result[index] = mock;
      else result.push(mock);
      continue;
    }
    const tool = byName.get(name);
    if (!tool) {
      throw new EvalDefinitionError(
        `case "${spec.name}": tools.${name} mocks a tool the agent does not have (its tools: ${tools.map((item) => item.name).join(", ") || "none"}); add it to the config, or give a tool defined with defineTool`,
        placeOf(spec),
      );
    }
    result[result.indexOf(tool)] = { ...tool, run: mockRun(name, mock, hooks) };
  }
  return result;
}

function mockRun(name: string, mock: ToolMock, hooks: CaseHooks | undefined): (args: unknown, context: ToolContext) => unknown {
  if (typeof mock === "function") return mock;
  if ("throws" in mock) {
    return () => {
      throw new Error(mock.throws);
    };
  }
  if ("results" in mock) {
    let next = 0;
    return () => {
      if (next >= mock.results.length) {
        // A mock that runs out must not invent an answer: the call fails and says so, and so
        // does the case — a run that needed one more result than the mock holds never passes.
        const message = `mock for ${name} has no result for call #${next + 1} (it holds ${mock.results.length})`;
        hooks?.fail(`the tool mock ran out: ${message}`);
        throw new Error(message);
      }
      return mock.results[next++];
    };
  }
  return () => mock.result;
}
