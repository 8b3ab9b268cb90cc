/**
 * One cassette per eval case (`retrace eval-test --live --record`, `--replay`,
 * `--cassette-mode`): `__cassettes__/<eval file>/<case name>.json` beside the eval file. The
 * agents of a suite are built once, with one fetch; that fetch finds the running case's
 * cassette through the case's scope, so a case's model calls and its --live LLM judge's are
 * recorded to (and replayed from) that case's file, even with cases running concurrently.
 */
import { besideSource, Cassette, cassetteFetch, type CassetteMode, type CassetteTiming } from "../cassette/index.js";
import { CassetteError } from "../errors/index.js";
import { currentScope, type CaseScope } from "../sandbox/index.js";
import type { CaseCassetteSeam, PlannedCase } from "./runner/index.js";
import { shellWord, regexLiteral } from "../text/index.js";

export interface CaseCassettes extends CaseCassetteSeam {
  readonly mode: CassetteMode;
}

export interface CaseCassetteOptions {
  mode: CassetteMode;
  timing?: CassetteTiming;
  /** Named secret values no cassette may hold (the provider keys). */
  secrets?: Readonly<Record<string, string | undefined>>;
  /** Where a case's cassette is (default: `__cassettes__/` beside its eval file); benchmarks keep one per task in a folder. */
  fileFor?: (planned: PlannedCase) => string;
  /** How to record a missing cassette, for the error a replay gives (default: the eval-test command). */
  recordHint?: (planned: PlannedCase) => string;
}

export function caseCassettes(options: CaseCassetteOptions): CaseCassettes {
  const byScope = new WeakMap<CaseScope, { cassette: Cassette; fetch: typeof fetch }>();
  const dispatch: typeof fetch = (input, init) => {
    const scope = currentScope();
    const bound = scope?.kind === "case" ? byScope.get(scope) : undefined;
    if (!bound) {
      return Promise.reject(new CassetteError("cassette_missing", "a model request made outside every eval case has no cassette to go to"));
    }
    return bound.fetch(input, init);
  };
  return {
    mode: options.mode,
    fetch: dispatch,
    keyless: options.mode === "replay",
    open(planned, scope) {
      const source = planned.case.file ?? planned.file;
      const cassette = Cassette.open(options.fileFor ? options.fileFor(planned) : besideSource(source, planned.case.name), {
        mode: options.mode,
        ...(options.timing !== undefined ? { timing: options.timing } : {}),
        ...(options.secrets ? { secrets: options.secrets } : {}),
        recordHint: options.recordHint
          ? options.recordHint(planned)
          : `record it with: retrace eval-test ${shellWord(planned.file)} --live --record -t ${shellWord(regexLiteral(planned.case.name))} (or --cassette-mode auto to record only what is missing)`,
      });
      byScope.set(scope, { cassette, fetch: cassetteFetch(cassette) });
      return { finish: () => finish(cassette) };
    },
  };
}

/** Closes a case's cassette: problems that fail the case, and notes (unused entries). */
function finish(cassette: Cassette): { errors: string[]; notes: string[] } {
      const summary = cassette.close();
      const errors = cassette.misses.length ? [`${cassette.misses.length} request(s) not in the cassette ${cassette.file}: ${cassette.misses[0]!.message}`] : [];
      const notes =
        summary.unused.length && (summary.mode === "replay" || summary.mode === "auto")
          ? [`cassette ${cassette.file}: ${summary.unused.length} recorded request(s) not used (${summary.unused.map((entry) => entry.entry).join(", ")})`]
          : [];
      return { errors, notes };
}
