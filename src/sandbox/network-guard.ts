/**
 * Under --mock nothing may reach the network. While a guard is installed:
 *
 * - every HTTP request (`fetch`, `http`/`https`, XMLHttpRequest) that no handler of the
 *   interception layer answers is refused, in a case or outside one — the layer's "unhandled"
 *   policy (see interception.ts) — and so is every other socket connect
 *   (`net.Socket.prototype.connect`, which `tls`, `http2` and raw clients go through);
 * - so are the other ways out, in a case or outside one (an eval file's top level, a timer it
 *   set): child processes (`child_process` spawn, exec, execFile, fork and their Sync forms,
 *   and `ChildProcess.prototype.spawn` under them all), worker threads (`new Worker`, also
 *   through `Worker.prototype.constructor`), the raw handles of `process.binding("tcp_wrap")`
 *   and its kin (which nothing can intercept), UDP datagrams (`dgram` Socket send and connect)
 *   and DNS queries (`dns.lookup`, `dns.resolve*`, a `Resolver`, and `dns.promises`). The one
 *   exception is Retrace's own esbuild service, which compiles TypeScript eval files.
 *
 * A refusal is recorded on the case that made it (found through the scope, see scope.ts), which
 * then fails and says where it tried to go. One made by a case after it ended (a leftover
 * timer), or outside every case, is recorded on the suite (`stray`), which fails as a whole.
 * A refused HTTP request fails as its client fails on a network error (fetch rejects, a
 * ClientRequest emits 'error'); the other refusals are thrown where the call is synchronous.
 *
 * The patches are process-wide and reference-counted: overlapping suites (two programmatic
 * `runEvalSuite` calls) share them, and they are removed when the last guard is uninstalled.
 * Code of a --live suite running at the same time is let through.
 */
import { syncBuiltinESMExports } from "node:module";
import { NetworkBlockedError } from "../errors/index.js";
import { addUnhandledPolicy } from "./interception.js";
import { patchRawNetwork } from "./raw-network.js";
import { currentScope, suiteOf, suiteScope, type SuiteScope } from "./scope.js";

interface Shared {
  installs: number;
  /** Installed guards' suites: they hear of attempts made with no scope at all. */
  suites: Map<SuiteScope, number>;
  restore: (() => void) | undefined;
}

const KEY = Symbol.for("retrace.sandbox.network-guard.v1");

function shared(): Shared {
  const holder = globalThis as { [KEY]?: Shared };
  holder[KEY] ??= { installs: 0, suites: new Map(), restore: undefined };
  return holder[KEY];
}

export class NetworkGuard {
  /** The suite this guard refuses the network for; its `stray` lists attempts outside its cases. */
  readonly scope: SuiteScope;
  #installed = false;

  constructor(scope: SuiteScope = suiteScope(true)) {
    this.scope = scope;
  }

  /** Attempts made outside any case (e.g. by an eval file's top level), or by a case after it ended. */
  get stray(): string[] {
    return this.scope.stray;
  }

  install(): void {
    if (this.#installed) return;
    this.#installed = true;
    const state = shared();
    state.suites.set(this.scope, (state.suites.get(this.scope) ?? 0) + 1);
    if (state.installs++ === 0) state.restore = patch(state);
  }

  uninstall(): void {
    if (!this.#installed) return;
    this.#installed = false;
    const state = shared();
    const count = (state.suites.get(this.scope) ?? 1) - 1;
    if (count > 0) state.suites.set(this.scope, count);
    else state.suites.delete(this.scope);
    if (--state.installs === 0) {
      state.restore?.();
      state.restore = undefined;
    }
  }
}

/** Whether the code running now is under a guard: a --mock suite's code, or code no suite owns. */
function guarded(): boolean {
  const scope = currentScope();
  return scope === undefined || suiteOf(scope).guarded;
}

function refuse(state: Shared, target: string): NetworkBlockedError {
  const scope = currentScope();
  if (scope?.kind === "case") {
    if (!scope.ended) scope.attempts.push(target);
    else scope.suite.stray.push(`${target} (from case "${scope.id}" after it ended)`);
  } else if (scope) {
    scope.stray.push(target);
  } else {
    for (const suite of state.suites.keys()) suite.stray.push(target);
  }
  return new NetworkBlockedError(target);
}

function patch(state: Shared): () => void {
  const refuseHere = (target: string): NetworkBlockedError => refuse(state, target);
  const removePolicy = addUnhandledPolicy((request) => (guarded() ? refuseHere(`${request.method} ${request.url}`) : undefined));
  const restoreRaw = patchRawNetwork(refuseHere, guarded);
  // `import { execFileSync } from "node:child_process"` (or `{ request }` from "node:http")
  // reads the ESM facade: bring it up to date.
  syncBuiltinESMExports();
  return () => {
    restoreRaw();
    removePolicy();
    syncBuiltinESMExports();
  };
}
