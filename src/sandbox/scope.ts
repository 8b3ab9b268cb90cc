/**
 * Which suite and which case the running code belongs to, carried by one AsyncLocalStorage for
 * the whole process. The network guard reads it to put a refused request on the case that made
 * it, and the runner's uncaught-error watch reads it to fail the case whose code threw. A case's scope is
 * closed when the case ends: whatever its leftover timers do later is the suite's problem
 * (reported on the suite), never silently dropped.
 *
 * The storage lives on globalThis so that two copies of Retrace in one process (the source
 * under a test runner, the build under the CLI) share it, as they share the guard's patches.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A suite in flight, and what happened outside its cases. */
export interface SuiteScope {
  readonly kind: "suite";
  /** Under --mock: the network is refused to its code. */
  readonly guarded: boolean;
  /** Network attempts outside every case of this suite, or from a case after it ended. */
  readonly stray: string[];
  /** Errors thrown (or promises rejected) and never handled, outside every case. */
  readonly errors: string[];
}

/** One attempt of one case. */
export interface CaseScope {
  readonly kind: "case";
  readonly suite: SuiteScope;
  /** The case id, as reports show it. */
  readonly id: string;
  /**
   * True once the case's verdict is final. Until then — a little after its body and scoring are
   * done, see the runner — what its code does (a rejection Node reports late) is still its own.
   */
  ended: boolean;
  /** Network attempts made while the case ran. */
  readonly attempts: string[];
  /** Errors its code threw (or rejected) and never handled, while the case ran. */
  readonly errors: string[];
}

export type Scope = SuiteScope | CaseScope;

interface Shared {
  storage: AsyncLocalStorage<Scope>;
}

const KEY = Symbol.for("retrace.sandbox.scope.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { storage: new AsyncLocalStorage<Scope>() };
  return holder[KEY];
}

export function suiteScope(guarded: boolean): SuiteScope {
  return { kind: "suite", guarded, stray: [], errors: [] };
}

export function caseScope(suite: SuiteScope, id: string): CaseScope {
  return { kind: "case", suite, id, ended: false, attempts: [], errors: [] };
}

export function currentScope(): Scope | undefined {
  return shared().storage.getStore();
}

export function runInScope<T>(scope: Scope, body: () => T): T {
  return shared().storage.run(scope, body);
}

/** The suite a scope belongs to. */
export function suiteOf(scope: Scope): SuiteScope {
  return scope.kind === "suite" ? scope : scope.suite;
}
