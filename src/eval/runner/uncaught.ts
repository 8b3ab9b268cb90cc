/**
 * Errors a case's code throws (or promises it rejects) and never handles: they fail the case
 * whose code it was (found through the sandbox's scope) instead of ending the process.
 */
import { relative } from "node:path";
import { errorMessage } from "../../errors/index.js";
import { currentScope, suiteOf, type SuiteScope } from "../../sandbox/index.js";
import { framePosition } from "../loader/index.js";

interface Shared {
  /** Suites whose uncaught errors are watched, with how many watches each holds. */
  watched: Map<SuiteScope, number>;
  removeListeners: (() => void) | undefined;
}

const KEY = Symbol.for("retrace.eval.uncaught.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { watched: new Map(), removeListeners: undefined };
  return holder[KEY];
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
  const scope = currentScope();
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
