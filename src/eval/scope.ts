/**
 * Which suite and which case the running code belongs to, carried by one AsyncLocalStorage for
 * the whole process. The network guard reads it to put a refused request on the case that made
 * it, and the uncaught-error watch reads it to fail the case whose code threw. A case's scope is
 * closed when the case ends: whatever its leftover timers do later is the suite's problem
 * (reported on the suite), never silently dropped.
 *
 * The storage lives on globalThis so that two copies of Retrace in one process (the source
 * under a test runner, the build under the CLI) share it, as they share the guard's patches.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { relative } from "node:path";
import { errorMessage } from "../errors/index.js";
import { framePosition } from "./typescript.js";

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
  /** Suites whose uncaught errors are watched, with how many watches each holds. */
  watched: Map<SuiteScope, number>;
  removeListeners: (() => void) | undefined;
}

const KEY = Symbol.for("retrace.eval.scope.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { storage: new AsyncLocalStorage<Scope>(), watched: new Map(), removeListeners: undefined };
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

/**
 * While the returned function is not called, an uncaught exception or an unhandled rejection
 * does not end the process: it fails the case whose code it came from (found through the
 * scope), or — outside every case, or from a case that already ended — is recorded on the
 * suite, which then fails as a whole (exit code 2). One pair of process listeners serves every
 * watched suite.
 */
export function watchUncaught(suite: SuiteScope): () => void {
  const state = shared();
  state.watched.set(suite, (state.watched.get(suite) ?? 0) + 1);
  if (!state.removeListeners) {
    const onError = (error: unknown, kind: string): void => recordUncaught(state, error, kind);
    const onException = (error: unknown): void => onError(error, "uncaught exception");
    const onRejection = (reason: unknown): void => onError(reason, "unhandled rejection");
    process.on("uncaughtException", onException);
    process.on("unhandledRejection", onRejection);
    state.removeListeners = () => {
      process.off("uncaughtException", onException);
      process.off("unhandledRejection", onRejection);
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const count = (state.watched.get(suite) ?? 1) - 1;
    if (count > 0) state.watched.set(suite, count);
    else state.watched.delete(suite);
    if (state.watched.size === 0) {
      state.removeListeners?.();
      state.removeListeners = undefined;
    }
  };
}

function recordUncaught(state: Shared, error: unknown, kind: string): void {
  const text = `${kind}: ${describeError(error)}`;
  const scope = state.storage.getStore();
  if (scope?.kind === "case" && !scope.ended) {
    scope.errors.push(text);
    return;
  }
  const where = scope?.kind === "case" ? ` (from case "${scope.id}" after it ended)` : "";
  const suite = scope ? suiteOf(scope) : undefined;
  if (suite && state.watched.has(suite)) {
    suite.errors.push(`${text}${where}`);
    return;
  }
  // No scope (or a suite no longer watched): every watched suite hears of it.
  for (const watched of state.watched.keys()) watched.errors.push(`${text}${where}`);
}

function describeError(error: unknown): string {
  const message = errorMessage(error);
  if (!(error instanceof Error) || !error.stack) return message;
  // The first frame says where it came from (in the eval file itself when it ran compiled);
  // the rest is noise in a report.
  const frame = error.stack.split("\n").find((line) => line.trimStart().startsWith("at "));
  const original = frame ? framePosition(frame) : undefined;
  if (!original) return message;
  const shown = relative(process.cwd(), original.file);
  return `${message} (at ${shown && !shown.startsWith("..") ? shown : original.file}:${original.line}:${original.column})`;
}
