/**
 * `useCassette()`: one cassette per test, for vitest suites whose code calls the SDKs itself.
 *
 *   import { useCassette } from "retrace-agents/vitest";
 *   useCassette();                       // in a file or a describe block
 *   it("answers", async () => { … new OpenAI().chat.completions.create(…) … });
 *
 * Each test's HTTP goes through its own cassette, `__cassettes__/<test file without extension>/<test name>.json`
 * beside the test file (like snapshot files). The mode is `options.mode`, else
 * RETRACE_CASSETTE_MODE, else `replay` on CI (CI is set) and `auto` elsewhere. A replay miss
 * fails the test with the CassetteMissError.
 */
import { besideSource, Cassette, CASSETTE_MODES, interceptWith, type CassetteMode, type CassetteOptions, type CassetteSummary } from "../cassette/index.js";

export interface UseCassetteOptions extends Partial<CassetteOptions> {
  /** The folder the `__cassettes__` folder goes in. Default: the test file's. */
  dir?: string;
  onSummary?: (summary: CassetteSummary) => void;
}

interface TaskLike {
  name: string;
  suite?: TaskLike | undefined;
  file?: { filepath?: string } | undefined;
  /** Set on the file's own task only. */
  filepath?: string;
}

/** `describe - describe - test`, as the cassette's file name. */
function fullName(task: TaskLike): string {
  const names: string[] = [];
  for (let current: TaskLike | undefined = task; current && current.filepath === undefined; current = current.suite) if (current.name) names.unshift(current.name);
  return names.join(" - ");
}

export function cassettePathFor(task: TaskLike, dir?: string): string {
  return besideSource(task.file?.filepath ?? "tests", fullName(task), dir);
}

function defaultMode(): CassetteMode {
  const fromEnv = process.env["RETRACE_CASSETTE_MODE"];
  if (fromEnv && (CASSETTE_MODES as readonly string[]).includes(fromEnv)) return fromEnv as CassetteMode;
  return process.env["CI"] ? "replay" : "auto";
}

/** The two vitest hooks `useCassette` registers with (vitest's own, handed over by `bindVitest`). */
export interface TestHooks {
  beforeEach(fn: (context: { task: unknown }) => void): void;
  afterEach(fn: () => void): void;
}

export function useCassetteWith({ beforeEach, afterEach }: TestHooks, options: UseCassetteOptions = {}): { readonly current: Cassette | undefined } {
  const { dir, onSummary, ...rest } = options;
  const state: { current: Cassette | undefined; stop: (() => void) | undefined } = { current: undefined, stop: undefined };
  beforeEach((context) => {
    const cassette = Cassette.open(cassettePathFor(context.task as TaskLike, dir), { mode: defaultMode(), ...rest });
    state.current = cassette;
    state.stop = cassette.mode === "live" ? undefined : interceptWith(cassette);
  });
  afterEach(() => {
    const cassette = state.current;
    state.stop?.();
    state.stop = undefined;
    state.current = undefined;
    if (!cassette) return;
    onSummary?.(cassette.close());
    if (cassette.misses[0]) throw cassette.misses[0];
  });
  return {
    get current() {
      return state.current;
    },
  };
}
