/**
 * The scorer registry. Each built-in scorer adds itself when its file is loaded, and users add
 * theirs with `registerScorer`; nothing dispatches on names anywhere else. The table is kept on
 * globalThis so that an eval file that reaches Retrace through another copy of the package
 * still registers into the table the runner reads.
 */
import { UnknownScorerError, EvalDefinitionError } from "../src/errors/index.js";
import { defineScorer } from "../src/scoring/index.js";
import { type Scorer } from "../src/contracts/index.js";
import { nearest } from "../src/text/index.js";

const KEY = Symbol.for("retrace.scorers.v1");

function table(): Map<string, Scorer> {
  const holder = globalThis as { [KEY]?: Map<string, Scorer> };
  holder[KEY] ??= new Map();
  return holder[KEY];
}

/**
 * Adds a scorer. A second, different scorer with the same name is an error unless `replace` is
 * set; registering the same definition again (an eval file loaded twice) is harmless. A
 * built-in cannot be replaced: the registry is shared by every eval file of a run, so one
 * file's replacement would change the verdicts of the others.
 */
export function registerScorer<Options>(scorer: Scorer<Options>, options: { replace?: boolean } = {}): Scorer<Options> {
  const checked = defineScorer(scorer);
  const scorers = table();
  const existing = scorers.get(checked.name);
  if (builtins().has(checked.name) && !(existing && sameDefinition(existing, checked as Scorer))) {
    throw new EvalDefinitionError(
      `"${checked.name}" is a built-in scorer and cannot be replaced (every eval file of the run shares it); register yours under another name, e.g. "my/${checked.name}"`,
    );
  }
  if (existing && !options.replace && !sameDefinition(existing, checked as Scorer)) {
    throw new EvalDefinitionError(`a scorer named "${checked.name}" is already registered; pick another name or pass { replace: true }`);
  }
  scorers.set(checked.name, checked as Scorer);
  return checked;
}

/** For the built-ins: registers the scorer and reserves its name. */
export function registerBuiltin<Options>(scorer: Scorer<Options>): Scorer<Options> {
  const checked = defineScorer(scorer);
  const scorers = table();
  // A second copy of Retrace in the process (source and build) registers the same built-ins: the first stays.
  if (!scorers.has(checked.name)) scorers.set(checked.name, checked as Scorer);
  builtins().add(checked.name);
  return checked;
}

const BUILTINS = Symbol.for("retrace.scorers.builtins.v1");

function builtins(): Set<string> {
  const holder = globalThis as { [BUILTINS]?: Set<string> };
  holder[BUILTINS] ??= new Set();
  return holder[BUILTINS];
}

function sameDefinition(a: Scorer, b: Scorer): boolean {
  return a.description === b.description && a.score.toString() === b.score.toString();
}

export function getScorer(name: string): Scorer {
  const scorer = table().get(name);
  if (scorer) return scorer;
  const names = [...table().keys()].sort();
  const suggestion = nearest(name, names);
  throw new UnknownScorerError(
    `no scorer named "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; registered: ${names.join(", ")}`,
  );
}

export function hasScorer(name: string): boolean {
  return table().has(name);
}

export function listScorers(): Scorer[] {
  // Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent, names are unique so two never compare equal, and the engine's sort only asks whether the result is below 0
  return [...table().values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
