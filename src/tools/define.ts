import { z } from "zod";
import type { RetrievedChunk, ToolSpec } from "../contracts/index.js";
import { immutable, immutableList } from "../canonical/index.js";

export type Risk = "safe" | "moderate" | "destructive";

/** What a running tool may use. Time and ids come from here, never from globals or the clock. */
export interface ToolContext {
  readonly runId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
  /**
   * Milliseconds since the epoch: the logged start of this call (the `at` of its
   * `tool.started`), so a resumed or replayed call sees the time the recorded one saw.
   */
  now(): number;
  /** Records what a retrieval tool found; it becomes a `retrieval` event of this call. */
  recordRetrieval(query: string, chunks: RetrievedChunk[]): void;
}

export interface ToolGovernance {
  /** How much harm a wrong call can do. */
  risk: Risk;
  /** Reads only; allowed in `chat` and `plan` modes. */
  readOnly: boolean;
  /** false, true (anyone may approve), a role, or roles that must all approve. */
  requiresApproval: boolean | string | string[];
  /** Milliseconds a decision may take before the call is `approval_expired`. */
  approvalTimeoutMs?: number;
  /**
   * Arguments that name files (`["path"]`). Policy and trust rules match them in their
   * `pathRoot`-relative form, so no spelling of a path (absolute, `./`, `a/../`) slips past a rule.
   */
  pathArgs?: readonly string[];
  /** The absolute folder relative path arguments are resolved against (a workspace). */
  pathRoot?: string;
  /**
   * Milliseconds a call may take. A call that takes longer is `tool.failed` with kind
   * `timeout`, its signal is aborted, and whatever it does afterwards is ignored.
   */
  timeoutMs?: number;
}

export interface Tool<Args = unknown, Result = unknown> extends ToolGovernance {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Args>;
  /** JSON Schema of the arguments, derived from `input`. */
  readonly parameters: Record<string, unknown>;
  /** Safe to run twice with the same arguments. Defaults to false: resume never silently re-runs it. */
  readonly idempotent: boolean;
  run(args: Args, context: ToolContext): Promise<Result> | Result;
}

export interface ToolDefinition<Args, Result> extends Partial<ToolGovernance> {
  name: string;
  description: string;
  /** A zod schema, or a JSON Schema object (`{ type: "object", properties: … }`), so an eval file needs no zod of its own. */
  input: z.ZodType<Args> | JsonSchemaObject;
  idempotent?: boolean;
  run(args: Args, context: ToolContext): Promise<Result> | Result;
}

/** A JSON Schema for a tool's arguments: an object schema (`type: "object"`). */
export type JsonSchemaObject = { type: "object"; properties?: Record<string, unknown>; required?: readonly string[] } & Record<string, unknown>;

function isZodSchema(input: unknown): input is z.ZodType {
  return typeof input === "object" && input !== null && "_zod" in input && typeof (input as { safeParse?: unknown }).safeParse === "function";
}

/** The zod schema the arguments are validated with, and the JSON Schema the model is shown. */
function schemasOf<Args>(name: string, input: z.ZodType<Args> | JsonSchemaObject): { input: z.ZodType<Args>; parameters: Record<string, unknown> } {
  if (isZodSchema(input)) {
    const parameters = z.toJSONSchema(input, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
    delete parameters.$schema;
    return { input, parameters };
  }
  if (typeof input !== "object" || input === null || (input as { type?: unknown }).type !== "object") {
    throw new TypeError(`tool "${name}": input must be a zod schema or a JSON Schema with type "object"`);
  }
  let converted: z.ZodType;
  try {
    converted = z.fromJSONSchema(input as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new TypeError(`tool "${name}": its JSON Schema cannot be used: ${(error as Error).message}`);
  }
  // The model sees the schema as written; arguments are checked against its zod form.
  const { $schema: _schema, ...parameters } = input;
  return { input: converted as z.ZodType<Args>, parameters };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function defineTool<Args, Result>(definition: ToolDefinition<Args, Result> & { input: z.ZodType<Args> }): Tool<Args, Result>;
export function defineTool<Result>(definition: ToolDefinition<Record<string, unknown>, Result> & { input: JsonSchemaObject }): Tool<Record<string, unknown>, Result>;
export function defineTool<Args, Result>(definition: ToolDefinition<Args, Result>): Tool<Args, Result> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new TypeError(`tool name "${definition.name}" must be 1-64 letters, digits, '_' or '-' (what every provider accepts)`);
  }
  const { input, parameters } = schemasOf(definition.name, definition.input);
  const properties = (parameters.properties ?? {}) as Record<string, unknown>;
  for (const name of definition.pathArgs ?? []) {
    // A rule on a path the tool never receives would silently never apply.
    if (!Object.hasOwn(properties, name)) throw new TypeError(`tool "${definition.name}": pathArgs names "${name}", which is not one of its arguments`);
  }
  return {
    name: definition.name,
    description: definition.description,
    input,
    parameters,
    idempotent: definition.idempotent ?? false,
    risk: definition.risk ?? "moderate",
    readOnly: definition.readOnly ?? false,
    requiresApproval: definition.requiresApproval ?? false,
    ...(definition.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: definition.approvalTimeoutMs } : {}),
    ...(definition.pathArgs ? { pathArgs: [...definition.pathArgs] } : {}),
    ...(definition.pathRoot !== undefined ? { pathRoot: definition.pathRoot } : {}),
    ...(definition.timeoutMs !== undefined ? { timeoutMs: checkedTimeout(definition.name, definition.timeoutMs) } : {}),
    run: definition.run,
  };
}

function checkedTimeout(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new TypeError(`tool "${name}": timeoutMs must be a positive number of milliseconds, got ${ms}`);
  return ms;
}

/** Something a module exported that is a tool made with defineTool (or shaped like one). */
export function isTool(value: unknown): value is AnyTool {
  if (value === null || typeof value !== "object") return false;
  const candidate = value as Partial<AnyTool>;
  return typeof candidate.name === "string" && typeof candidate.run === "function" && typeof candidate.idempotent === "boolean" && typeof candidate.input?.safeParse === "function";
}

export function toolSpec(tool: Tool<never, unknown> | Tool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

const specLists = new WeakMap<readonly AnyTool[], readonly ToolSpec[]>();

/** The specs of a tool list, built once per list: every model request carries them. */
export function toolSpecs(tools: readonly AnyTool[]): readonly ToolSpec[] {
  let specs = specLists.get(tools);
  if (!specs) {
    specs = immutableSpecs(tools.map(toolSpec));
    specLists.set(tools, specs);
  }
  return specs;
}

/**
 * The specs as an immutable copy (see `immutable`): a request's tool list is then written,
 * redacted and checked from what is known of it, not walked again on every step. A copy, so
 * that a tool's own parameter schema is not frozen under it; specs that are not plain data
 * (which no request can carry anyway) are left as they are.
 */
function immutableSpecs(specs: ToolSpec[]): readonly ToolSpec[] {
  try {
    return immutableList(specs.map((spec) => immutable(structuredClone(spec))));
  } catch {
    return specs;
  }
}

/** Any tool, whatever its argument and result types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's own types are checked where it is defined
export type AnyTool = Tool<any, unknown>;
