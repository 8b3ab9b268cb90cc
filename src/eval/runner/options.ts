/** What the runner is asked to run, and how. */
import type { RunContext } from "../../context/index.js";
import type { RunStore } from "../../contracts/index.js";
import type { CaseScope, NetworkGuard, SuiteScope } from "../../sandbox/index.js";
import type { CaseResult } from "../report/index.js";
import type { EvalCase } from "../dsl/index.js";
import type { EvalMode } from "./setup.js";

/** A case picked to run, with the id reports know it by. */
export interface PlannedCase {
  /** `<file> > <name>`. */
  id: string;
  /** The eval file as reports show it (relative to the working directory). */
  file: string;
  case: EvalCase;
}

export interface RunCasesOptions {
  mode: EvalMode;
  /** Cases in flight at once. Default: see defaultConcurrency. */
  concurrency?: number;
  /** For cases that set no timeout. Default 30 s. */
  timeoutMs?: number;
  /** Runs of each case. Default 1. */
  repeat?: number;
  /**
   * Stop starting cases after this many failed; the cases not started are reported skipped.
   * Under --mock it runs the cases one at a time (whatever `concurrency` says), so the same
   * cases are skipped on every run. 0 (default): never.
   */
  bail?: number;
  /** For cases that set no threshold. Default 0. */
  threshold?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where --live runs are kept (e.g. the SQLite store); --mock always uses a memory store per case. */
  store?: RunStore;
  /**
   * Under --mock: where every case's runs (its own, its judges', its sub-agents') are copied
   * once the case is over, so a failed case's log can be looked at (`--keep-runs`). Each case
   * still runs in a memory store of its own.
   */
  keep?: RunStore;
  /** The run context for --live runs (wall clock, random ids). Default: the system's. */
  liveContext?: () => RunContext;
  onCaseDone?: (result: CaseResult, done: number, total: number) => void;
  /** Under --mock: a guard already installed by the caller (the suite, which also guards loading). */
  guard?: NetworkGuard;
  /**
   * The suite's scope, where what happens outside every case is recorded (network attempts,
   * uncaught errors). Default: the guard's, or a new one.
   */
  scope?: SuiteScope;
  /** Under --live: one cassette per case (--record, --replay, --cassette-mode). */
  cassettes?: CaseCassetteSeam;
}

/**
 * Per-case cassettes (src/eval/cassettes.ts): the runner builds the agents with `fetch`, opens
 * a case's cassette for its scope before the case runs, and finishes it after the scoring.
 */
export interface CaseCassetteSeam {
  readonly fetch: typeof fetch;
  /** Agents need no key (every answer comes from a cassette). */
  readonly keyless: boolean;
  /** Throws (a RetraceError) when the case cannot have its cassette: the case then fails, saying why. */
  open(planned: PlannedCase, scope: CaseScope): { finish(): { errors: string[]; notes: string[] } };
}

export const DEFAULT_TIMEOUT_MS = 30_000;
