/**
 * `defineEval`: declares an eval case. Eval files call it at the top level, any number of
 * times; the loader collects what each file defined. The collector lives on globalThis so that
 * an eval file that reaches Retrace through another copy of the package (the source under a
 * test runner, the build under the CLI) still lands in the collector the loader reads.
 */
import type { z } from "zod";
import type { AgentConfigSchema } from "../../config/index.js";
import { EvalDefinitionError } from "../../errors/index.js";
import type { ScriptInput } from "../../contracts/index.js";
import type { AnyTool, ToolContext } from "../../tools/index.js";
import { nearest } from "../../text/index.js";
import type { EvalContext } from "./context.js";

/** An agent config as written in YAML, given inline. */
export type AgentConfigInput = z.input<typeof AgentConfigSchema>;

/**
 * Replaces a tool's run for this case; its name, description and argument schema stay, so the
 * model sees the same tool and arguments are still validated.
 * - `{ result }`: every call returns it;
 * - `{ results: [...] }`: successive calls return successive items; one call too many fails loudly;
 * - `{ throws: "message" }`: every call throws (an injected fault, recorded as `tool.failed`);
 * - a function: called with the validated arguments.
 */
export type ToolMock =
  | { result: unknown }
  | { results: readonly unknown[] }
  | { throws: string }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mock function types the arguments of the tool it stands in for
  | ((args: any, context: ToolContext) => unknown);

export interface EvalSpec {
  name: string;
  /** An agent YAML file (relative to the eval file) or the config inline. */
  config: string | AgentConfigInput;
  /** The scripted model for --mock: a script file (relative to the eval file) or the script inline. */
  mock?: string | ScriptInput;
  /** Tool mocks and injected faults by tool name, or extra tools defined in code. */
  tools?: Record<string, ToolMock | AnyTool>;
  /**
   * A bundle (relative to the eval file) to replay instead of sending `input`: the captured run
   * replays with this case's config, and the assertions run over the replayed log. Where the
   * agent now diverges from the recording, `mock` answers from there on; without a mock the
   * divergence fails the case.
   */
  replay?: string;
  /** User turns sent before `test` runs. */
  input?: string | readonly string[];
  tags?: readonly string[];
  /** Milliseconds the case may take, turns and assertions included. */
  timeout?: number;
  /** Least score (mean of non-skipped assertion values) the case needs to pass. */
  threshold?: number;
  /**
   * Scripted responses the run never reached fail the case (the agent stopped before its
   * script expected) — its own script's, a called sub-agent's, a judge's. true: spares are on
   * purpose. A script can say the same for itself with `allow_unused: true`.
   */
  allowUnused?: boolean;
  /** The case body: drive the agent with `t.send` and record assertions. */
  test: (t: EvalContext) => unknown;
}

const CASE = Symbol.for("retrace.eval.case.v1");

export interface EvalCase extends Readonly<EvalSpec> {
  readonly [CASE]: true;
  /** The eval file that defined the case (absolute), when loaded from a file. */
  readonly file: string | undefined;
}

const SPEC_KEYS = new Set(["name", "config", "mock", "replay", "tools", "input", "tags", "timeout", "threshold", "allowUnused", "test"]);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function checkToolMock(mock: unknown): string | undefined {
  if (typeof mock === "function" || isTool(mock)) return undefined;
  if (!isObject(mock)) return "expected { result }, { results: [...] }, { throws: \"message\" }, a function or a tool";
  const keys = Object.keys(mock);
  if (keys.length === 1 && keys[0] === "result") return undefined;
  if (keys.length === 1 && keys[0] === "results") return Array.isArray(mock.results) ? undefined : "results must be an array";
  if (keys.length === 1 && keys[0] === "throws") return typeof mock.throws === "string" && mock.throws ? undefined : "throws must be a message";
  return `expected exactly one of result, results, throws; got ${keys.join(", ") || "nothing"}`;
}

/**
 * The first problem with a spec, as "path: message". Written by hand rather than with zod: a
 * suite defines thousands of cases and this runs for each, at load time.
 */
function checkSpec(spec: unknown): string | undefined {
  if (!isObject(spec)) return "expected an object { name, config, test, ... }";
  for (const key of Object.keys(spec)) {
    if (!SPEC_KEYS.has(key)) {
      const suggestion = nearest(key, [...SPEC_KEYS]);
      return `unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`;
    }
  }
  if (typeof spec.name !== "string" || spec.name.trim() === "") return "name: a case needs a name";
  if (!(typeof spec.config === "string" && spec.config) && !isObject(spec.config)) return "config: must be a path to an agent YAML file or an inline config object";
  if (spec.mock !== undefined && !(typeof spec.mock === "string" && spec.mock) && !isObject(spec.mock)) return "mock: must be a path to a script or an inline script";
  if (spec.replay !== undefined && !(typeof spec.replay === "string" && spec.replay)) return "replay: must be the path of a bundle (.tgz)";
  if (spec.replay !== undefined && typeof spec.config !== "string") return "replay: needs config as the path of the agent's YAML file";
  if (spec.tools !== undefined) {
    if (!isObject(spec.tools)) return "tools: expected an object of tool mocks by tool name";
    for (const [name, mock] of Object.entries(spec.tools)) {
      const problem = checkToolMock(mock);
      if (problem) return `tools.${name}: ${problem}`;
    }
  }
  if (spec.input !== undefined && typeof spec.input !== "string" && !(Array.isArray(spec.input) && spec.input.every((turn) => typeof turn === "string"))) {
    return "input: expected a message or a list of messages";
  }
  if (spec.tags !== undefined && !(Array.isArray(spec.tags) && spec.tags.every((tag) => typeof tag === "string" && tag !== ""))) return "tags: expected a list of words";
  if (spec.timeout !== undefined && !(typeof spec.timeout === "number" && spec.timeout > 0)) return "timeout: expected milliseconds (a positive number)";
  if (spec.threshold !== undefined && !(typeof spec.threshold === "number" && spec.threshold >= 0 && spec.threshold <= 1)) return "threshold: expected a number from 0 to 1";
  if (spec.allowUnused !== undefined && typeof spec.allowUnused !== "boolean") return "allowUnused: expected true or false";
  if (typeof spec.test !== "function") return "test: must be a function (t) => { ... }";
  return undefined;
}

export function isTool(value: unknown): value is AnyTool {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as AnyTool).run === "function" &&
    typeof (value as AnyTool).name === "string" &&
    typeof (value as AnyTool).parameters === "object"
  );
}

interface Collector {
  file: string | undefined;
  cases: EvalCase[];
}

const COLLECTOR = Symbol.for("retrace.eval.collector.v1");

function collector(): Collector {
  const holder = globalThis as { [COLLECTOR]?: Collector };
  holder[COLLECTOR] ??= { file: undefined, cases: [] };
  return holder[COLLECTOR];
}

export function defineEval(spec: EvalSpec): EvalCase {
  const current = collector();
  const place = current.file ? { file: current.file } : {};
  const problem = checkSpec(spec);
  if (problem) {
    const named = typeof spec?.name === "string" && spec.name ? ` "${spec.name}"` : "";
    throw new EvalDefinitionError(`defineEval${named}: ${problem}`, place);
  }
  // Object.assign rather than a spread: on Node 20 (V8 11) a spread of each case's own literal
  // gives every case a hidden class of its own, which a suite of thousands keeps in memory and
  // which makes every read of a case's fields a megamorphic one.
  const definition: EvalCase = Object.freeze(Object.assign({}, spec, { name: spec.name.trim(), file: current.file, [CASE]: true as const }));
  current.cases.push(definition);
  return definition;
}

/** Where an error about the case points: its eval file, when it has one. */
export function placeOf(spec: EvalCase): { file?: string } {
  return spec.file ? { file: spec.file } : {};
}

export function isEvalCase(value: unknown): value is EvalCase {
  return value !== null && typeof value === "object" && (value as { [CASE]?: unknown })[CASE] === true;
}

/** Collects the cases `load` defines; used by the loader around each file's import. */
export async function collectCases(file: string | undefined, load: () => Promise<unknown>): Promise<EvalCase[]> {
  const current = collector();
  const previous = { file: current.file, cases: current.cases };
  current.file = file;
  current.cases = [];
  try {
    await load();
    return current.cases;
  } finally {
    current.file = previous.file;
    current.cases = previous.cases;
  }
}
