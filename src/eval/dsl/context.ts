/**
 * `t`, the handle an eval case body gets. It drives one agent run (`await t.send(...)`, as many
 * turns as the case needs) and records assertions. Assertions are evaluated after the body
 * returns, over the whole run log, so `t.calledTool("x")` written before a later turn still
 * sees that turn. Every assertion is a scorer underneath; `t.judge` is the one that runs at
 * once (it may call a model) and returns its result.
 */
import type { AgentRun, Cancellation, TurnOutcome } from "../../agent/index.js";
import type { AssertionCall, AssertionSugar, CaseInfo, JudgeService, RunEvent, RunStore, RunView, Scorer, ScoreResult, ToolCallView, TurnView, Usage } from "../../contracts/index.js";
import { errorMessage } from "../../errors/index.js";
import { viewRun } from "../../journal/index.js";
import { checkResult, failed, optionsProblem, passed } from "../../scoring/index.js";
import { EvalDefinitionError } from "../../errors/index.js";
import { z } from "zod";
import { brief } from "../../text/index.js";
// The registry (every built-in registers itself on import) and the built-ins' assertion sugar.
import { builtinAssertions, getScorer, type BuiltinAssertions } from "../../../scorers/index.js";
import { isScorerRef, type Matcher } from "./match.js";

export type Severity = "gate" | "soft";

export interface AssertOptions {
  /** "gate" (default): a failure fails the case. "soft": it only lowers the score. */
  severity?: Severity;
  /** How the assertion is named in reports. */
  label?: string;
}

export interface AssertionResult {
  /** The `t` method that recorded it (calledTool, check, judge, ...). */
  assertion: string;
  label: string;
  scorer: string;
  severity: Severity;
  status: "passed" | "failed" | "skipped";
  /** 0..1; null when skipped. */
  value: number | null;
  reason: string;
  details?: unknown;
}

export interface JudgeOptions extends AssertOptions {
  /** What is judged; default: the run's final output. */
  value?: unknown;
  expected?: unknown;
  [option: string]: unknown;
}

interface Recorded {
  assertion: string;
  label: string;
  severity: Severity;
  scorer: Scorer | string;
  value: unknown;
  hasValue: boolean;
  expected: unknown;
  options: Record<string, unknown>;
  result?: AssertionResult;
  /** A t.judge still being scored (or scored at once). */
  pending?: AssertionResult | Promise<AssertionResult>;
}

/** What the runner gives a case's `t`. */
export interface CaseHost {
  run: AgentRun;
  store: RunStore;
  /** The case's cancellation (its deadline aborts it); its signal is made only if a turn hands it on. */
  cancellation: Cancellation;
  caseInfo: CaseInfo;
  judge: JudgeService | undefined;
  workspace: string | undefined;
  /** Records a failure of the case itself (not of an assertion): it fails the case. */
  fail(message: string): void;
}

/** The options every assertion takes, besides its own. */
const COMMON_OPTIONS = { severity: z.enum(["gate", "soft"]), label: z.string() };
/** t.judge's own options; the rest go to the scorer. */
const NO_EXTRA: Record<string, z.ZodType> = {};
const JUDGE_OPTIONS = { ...COMMON_OPTIONS, value: z.unknown(), expected: z.unknown() };

const EVALUATE = Symbol("evaluate");
const UNSETTLED = Symbol("unsettled");
const SENDING = Symbol("sending");
const CLOSE = Symbol("close");

/** A `t.<method>` made from a scorer's sugar: its positional arguments, then its options with severity and label. */
export type AssertionMethod<Sugar> =
  Sugar extends AssertionSugar<infer Positional, infer Options> ? (...args: [...Positional, options?: AssertOptions & Options]) => void : never;

/** The assertion methods a table of sugar gives `t`. */
export type AssertionMethods<Table> = { [Method in keyof Table]: AssertionMethod<Table[Method]> };

/** Any sugar, as the DSL calls it (its own types were checked where it was defined). */
type AnySugar = {
  readonly scorer: string;
  readonly arity: number;
  readonly options: Record<string, z.ZodType>;
  readonly check?: (positional: never) => string | undefined;
  readonly call: (positional: never, options: never) => AssertionCall;
};

/** What t.judge returns: the assertion's result with the scorer's verdict (`pass`, `skipped`) beside its `status`. */
export interface JudgeResult extends AssertionResult {
  pass: boolean;
  skipped: boolean;
}

// The built-in assertions (t.calledTool, t.outputContains, ...) are methods of every t, made from the table below.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged with the class below, which installs these methods in its static block
export interface EvalContext extends AssertionMethods<BuiltinAssertions> {}

export class EvalContext {
  readonly #host: CaseHost;
  readonly #recorded: Recorded[] = [];
  readonly #outcomes: TurnOutcome[] = [];
  readonly #sending = new Set<Promise<TurnOutcome>>();
  #closed = false;
  #view: RunView | undefined;
  #viewLength = -1;

  constructor(host: CaseHost) {
    this.#host = host;
  }

  // ---- the run ----------------------------------------------------------------------------

  /**
   * Sends a user turn and drives the agent until the turn completes, fails or waits. A failing
   * agent is recorded in the log and returned as a failed outcome, never thrown.
   */
  send(message: string): Promise<TurnOutcome> {
    if (this.#closed) {
      return Promise.reject(new Error(`t.send(${brief(message)}) after the case ended: await every t.send in the case's body`));
    }
    const turn = this.#send(message);
    // Tracked until it settles, so a turn the body did not await is caught, never scored mid-run.
    this.#sending.add(turn);
    void turn.then(() => this.#sending.delete(turn));
    return turn;
  }

  async #send(message: string): Promise<TurnOutcome> {
    const run = this.#host.run;
    let outcome: TurnOutcome;
    try {
      outcome = await run.send(message, { cancellation: this.#host.cancellation });
    } catch (error) {
      this.#host.fail(`t.send(${brief(message)}) could not run the turn: ${errorMessage(error)}`);
      outcome = { runId: run.runId, status: "failed", output: "", error: { code: "send_failed", message: errorMessage(error) }, pending: [] };
    }
    this.#outcomes.push(outcome);
    return outcome;
  }

  get runId(): string {
    return this.#host.run.runId;
  }

  /** The run's events so far, exactly as logged. */
  get events(): readonly RunEvent[] {
    return this.#host.run.log.events;
  }

  /** Views over the log: tool calls, turns, retrievals, guardrails, usage. */
  get run(): RunView {
    const events = this.events;
    if (!this.#view || this.#viewLength !== events.length) {
      this.#view = viewRun(events);
      this.#viewLength = events.length;
    }
    return this.#view;
  }

  /** The last turn's answer ("" if it failed). */
  get reply(): string {
    return this.run.output;
  }

  get turns(): TurnView[] {
    return this.run.turns;
  }

  get toolCalls(): ToolCallView[] {
    return this.run.toolCalls;
  }

  get usage(): Usage {
    return this.run.usage;
  }

  /** The case's run store: its run, and the runs of any LLM judges (linked to it as their parent). */
  get store(): RunStore {
    return this.#host.store;
  }

  /** The case's own workspace folder (a temp dir) when the agent has file tools. */
  get workspace(): string | undefined {
    return this.#host.workspace;
  }

  // ---- assertions over the log -------------------------------------------------------------

  /** Checks any value: `match.numeric(4)`, a RegExp, a predicate, or plain data (exact equality). */
  check(value: unknown, matcher: Matcher, options: AssertOptions = {}): void {
    this.#refuse("check", optionsProblem(options, COMMON_OPTIONS));
    if (isScorerRef(matcher)) {
      this.#refuse(`check(…, ${matcher.label})`, scorerProblem(matcher.scorer, matcher.options, matcher.expected));
      this.#record("check", `check(${brief(value)}, ${matcher.label})`, matcher.scorer, options, matcher.options, matcher.expected, value);
    } else if (matcher instanceof RegExp) {
      this.#record("check", `check(${brief(value)}, ${String(matcher)})`, "regex", options, {}, matcher, value);
    } else if (typeof matcher === "function") {
      this.#record("check", `check(${brief(value)}, ${brief(matcher)})`, predicateScorer(matcher), options, {}, undefined, value);
    } else {
      this.#record("check", `check(${brief(value)}, ${brief(matcher)})`, "exact", options, {}, matcher, value);
    }
  }

  /**
   * Runs a scorer now (a registered name or a scorer object; "llm-judge" asks a model) and
   * records its result. Options go to the scorer; `value` defaults to the final output.
   */
  async judge(scorer: string | Scorer, options: JudgeOptions = {}): Promise<JudgeResult> {
    const { severity, label, value, expected, ...scorerOptions } = options;
    this.#refuse(`judge(${brief(typeof scorer === "string" ? scorer : scorer.name)})`, optionsProblem({ severity, label }, COMMON_OPTIONS) ?? scorerProblem(scorer, scorerOptions, expected, JUDGE_OPTIONS));
    const name = typeof scorer === "string" ? scorer : scorer.name;
    const entry: Recorded = {
      assertion: "judge",
      label: label ?? `judge(${brief(name)})`,
      severity: severity ?? "gate",
      scorer,
      value,
      hasValue: "value" in options,
      expected,
      options: scorerOptions,
    };
    this.#recorded.push(entry);
    entry.pending = this.#score(entry);
    entry.result = await entry.pending;
    return { ...entry.result, pass: entry.result.status === "passed", skipped: entry.result.status === "skipped" };
  }

  /** A call that would check nothing, or with options it does not take, is a mistake in the case: it throws, naming the case. */
  #refuse(call: string, problem: string | undefined): void {
    if (problem === undefined) return;
    // No place: the runner adds the line of the eval file the call is on.
    throw new EvalDefinitionError(`case "${this.#host.caseInfo.name}": t.${call}: ${problem}`);
  }

  static {
    for (const [method, sugar] of Object.entries(builtinAssertions) as [string, AnySugar][]) {
      // A scorer's sugar adds methods; it never replaces one of t's own (send, check, judge, ...).
      if (method in EvalContext.prototype) throw new Error(`internal: the assertion t.${method} would replace a method of t`);
      const assertion = {
        [method](this: EvalContext, ...args: unknown[]): void {
          const options = (args[sugar.arity] ?? {}) as AssertOptions;
          const positional = args.slice(0, sugar.arity);
          const shown = () => `${method}(${positional.map((arg) => brief(arg)).join(", ")})`;
          const problem = optionsProblem(args[sugar.arity], sugar.options, COMMON_OPTIONS) ?? sugar.check?.(positional as never);
          if (problem !== undefined) this.#refuse(shown(), problem);
          const call = sugar.call(positional as never, options as never);
          this.#record(method, call.label, sugar.scorer, options, call.options, call.expected);
        },
      }[method];
      Object.defineProperty(EvalContext.prototype, method, { value: assertion, writable: true, configurable: true });
    }
  }

  // ---- evaluation (by the runner) ----------------------------------------------------------

  get assertionCount(): number {
    return this.#recorded.length;
  }

  /** @internal Evaluates what the body recorded, in order, into `results` (so a caller that stops waiting keeps what is done). */
  async [EVALUATE](results: AssertionResult[]): Promise<AssertionResult[]> {
    for (const entry of this.#recorded) {
      const result = entry.result ?? entry.pending ?? this.#score(entry);
      results.push(result instanceof Promise ? await result : result);
    }
    return results;
  }

  /** @internal The recorded assertions from `from` on, as failed with `reason` (they never settled). */
  [UNSETTLED](from: number, reason: string): AssertionResult[] {
    return this.#recorded.slice(from).map((entry) => ({
      assertion: entry.assertion,
      label: entry.label,
      scorer: typeof entry.scorer === "string" ? entry.scorer : entry.scorer.name,
      severity: entry.severity,
      status: "failed" as const,
      value: 0,
      reason,
    }));
  }

  /** @internal The turns still running (t.send calls the body did not await). */
  [SENDING](): Promise<TurnOutcome>[] {
    return [...this.#sending];
  }

  /** @internal The case is over: a later t.send is refused. */
  [CLOSE](): void {
    this.#closed = true;
  }

  #record(
    assertion: string,
    label: string,
    scorer: Scorer | string,
    options: AssertOptions,
    scorerOptions: Record<string, unknown>,
    expected?: unknown,
    value?: unknown,
  ): void {
    this.#recorded.push({
      assertion,
      label: options.label ?? label,
      severity: options.severity ?? "gate",
      scorer,
      value,
      hasValue: assertion === "check",
      expected,
      options: scorerOptions,
    });
  }

  /**
   * Scores one assertion. A scorer that answers at once (the built-ins) is scored at once, with
   * no promise made: a case's assertions are most of the promises a --mock case would make.
   */
  #score(entry: Recorded): AssertionResult | Promise<AssertionResult> {
    let scorer: Scorer;
    try {
      scorer = typeof entry.scorer === "string" ? getScorer(entry.scorer) : entry.scorer;
    } catch (error) {
      return assertionResult(entry, String(entry.scorer), "failed", 0, errorMessage(error));
    }
    const view = this.run;
    let outcome: unknown;
    try {
      outcome = scorer.score({
        case: this.#host.caseInfo,
        run: view,
        output: view.output,
        value: entry.hasValue ? entry.value : view.output,
        expected: entry.expected,
        options: entry.options,
        judge: this.#host.judge,
      });
      // Inside the try: reading `then` runs a getter, which may throw.
      if (isThenable(outcome)) {
        return Promise.resolve(outcome).then(
          (settled) => scoredResult(entry, scorer, settled),
          (error: unknown) => couldNotScore(entry, scorer, error),
        );
      }
    } catch (error) {
      return couldNotScore(entry, scorer, error);
    }
    return scoredResult(entry, scorer, outcome);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function couldNotScore(entry: Recorded, scorer: Scorer, error: unknown): AssertionResult {
  return assertionResult(entry, scorer.name, "failed", 0, `${scorer.name} could not score: ${errorMessage(error)}`);
}

/** An assertion's result from what its scorer returned (checked: a scorer that returns nonsense fails the assertion). */
function scoredResult(entry: Recorded, scorer: Scorer, outcome: unknown): AssertionResult {
  let result: ScoreResult;
  try {
    result = checkResult(outcome, scorer.name);
  } catch (error) {
    return couldNotScore(entry, scorer, error);
  }
  if (result.skipped) return assertionResult(entry, scorer.name, "skipped", null, result.reason, result.details);
  return assertionResult(entry, scorer.name, result.pass ? "passed" : "failed", result.value, result.reason, result.details);
}

/**
 * One assertion's result, written as a literal: a suite keeps one per assertion until its
 * report, and on Node 20 (V8 11) building it by spreading a fresh object gives each its own
 * hidden class (memory, and megamorphic reads in every reporter).
 */
function assertionResult(
  entry: Recorded,
  scorer: string,
  status: AssertionResult["status"],
  value: number | null,
  reason: string,
  details?: unknown,
): AssertionResult {
  const result: AssertionResult = { assertion: entry.assertion, label: entry.label, severity: entry.severity, scorer, status, value, reason };
  if (details !== undefined) result.details = details as AssertionResult["details"];
  return result;
}

/** Scores what the case recorded, in order, pushing each result into `results` as it is known. */
export function evaluateAssertions(t: EvalContext, results: AssertionResult[] = []): Promise<AssertionResult[]> {
  return t[EVALUATE](results);
}

/** The assertions `evaluateAssertions` had not reached (from index `from`), failed with `reason`. */
export function unsettledAssertions(t: EvalContext, from: number, reason: string): AssertionResult[] {
  return t[UNSETTLED](from, reason);
}

/** The turns (t.send) the body started and did not await, still running. */
export function sendsInFlight(t: EvalContext): Promise<TurnOutcome>[] {
  return t[SENDING]();
}

/** Ends the case for `t`: a later t.send is refused. */
export function closeContext(t: EvalContext): void {
  t[CLOSE]();
}

/**
 * A problem with a scorer's options (unknown keys, values its schema refuses) or expected
 * value, when the scorer declares them. A scorer named but not registered is left to scoring,
 * which reports it with a suggestion.
 */
function scorerProblem(scorer: string | Scorer, options: Record<string, unknown>, expected: unknown, extra: Record<string, z.ZodType> = NO_EXTRA): string | undefined {
  let resolved: Scorer | undefined;
  try {
    resolved = typeof scorer === "string" ? getScorer(scorer) : scorer;
  } catch {
    return undefined;
  }
  const declared = resolved.options as Record<string, z.ZodType> | undefined;
  const problem = declared ? optionsProblem(options, declared, extra) : undefined;
  return problem ?? resolved.checkExpected?.(expected);
}

function predicateScorer(predicate: (value: unknown) => unknown): Scorer {
  const verdict = (value: unknown, outcome: unknown): ScoreResult => {
    if (typeof outcome === "boolean") {
      return outcome ? passed(`${brief(predicate)} holds for ${brief(value)}`) : failed(`${brief(predicate)} does not hold for ${brief(value)}`);
    }
    return checkResult(outcome, "predicate");
  };
  return {
    name: "predicate",
    description: "A function of the value returns true, or a score result.",
    // A predicate that answers at once is scored at once; one that returns a promise, when it settles.
    score({ value }) {
      const outcome = predicate(value);
      return isThenable(outcome) ? Promise.resolve(outcome).then((settled) => verdict(value, settled)) : verdict(value, outcome);
    },
  };
}
