/**
 * The package.json side of `retrace init`: the scaffolded project must depend on Retrace and
 * have an `eval` script, or `npm run eval` and `npx retrace` reach nothing (or, through npx, the
 * unrelated package that owns the npm name `retrace`). An existing package.json is amended —
 * fields are added, never replaced — because everything else in it is the user's.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ownPackage, PACKAGE_NAME } from "../../package-info.js";

export const EVAL_SCRIPT = "retrace eval-test --mock";

const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"] as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The spec a manifest declares Retrace under, in any dependency field. */
function declaredSpec(manifest: Json): string | undefined {
  for (const field of DEPENDENCY_FIELDS) {
    const deps = manifest[field];
    if (isObject(deps) && typeof deps[PACKAGE_NAME] === "string") return deps[PACKAGE_NAME];
  }
  return undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

export interface InstalledRetrace {
  /** The folder whose node_modules holds it: `dir` itself or an ancestor (npm puts every ancestor's .bin on PATH for scripts). */
  project: string;
  version: string;
}

/** The Retrace that `npm run eval` would run in `dir`, if one is installed there or above. */
export function installedRetrace(dir: string): InstalledRetrace | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const manifest = readJson(join(at, "node_modules", PACKAGE_NAME, "package.json"));
    if (isObject(manifest) && manifest.name === PACKAGE_NAME && typeof manifest.version === "string") return { project: at, version: manifest.version };
    if (dirname(at) === at) return undefined;
  }
}

/** A local path spec (`file:…`, `./…`, `../…`), as npm would read it from `from`, rewritten to be read from `to`. */
function rebase(spec: string, from: string, to: string): string {
  const local = /^file:/.test(spec) ? spec.slice("file:".length) : /^\.{1,2}[\\/]/.test(spec) ? spec : undefined;
  if (local === undefined || isAbsolute(local) || from === to) return spec;
  const moved = relative(to, resolve(from, local)).split(sep).join("/");
  return `file:${moved || "."}`;
}

/**
 * The spec to declare Retrace under in `dir`: the one the project that has it installed declares
 * (so that `npm install` there keeps the same copy — a tarball, a git URL, a folder), else the
 * caret range of the running version.
 */
export function dependencySpec(dir: string): string {
  const installed = installedRetrace(dir);
  if (installed) {
    const manifest = readJson(join(installed.project, "package.json"));
    const spec = isObject(manifest) ? declaredSpec(manifest) : undefined;
    if (spec !== undefined) return rebase(spec, installed.project, resolve(dir));
    return `^${installed.version}`;
  }
  return `^${ownPackage().version}`;
}

export type PackagePlan =
  | { action: "create"; text: string }
  | { action: "update"; text: string; added: string[]; notes: string[] }
  | { action: "keep"; notes: string[] };

/** The manifest's indentation, so that an amended file differs only in the added lines. */
function indentOf(text: string): string {
  return /^\{\s*?\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
}

/**
 * What init does to package.json: `existing` is its text, or undefined when there is none.
 * A file that is not a JSON object is left alone, with a note saying what to add by hand.
 */
export function planPackageJson(existing: string | undefined, spec: string): PackagePlan {
  if (existing === undefined) {
    const manifest = { name: "retrace-evals", private: true, type: "module", scripts: { eval: EVAL_SCRIPT }, devDependencies: { [PACKAGE_NAME]: spec } };
    return { action: "create", text: `${JSON.stringify(manifest, null, 2)}\n` };
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(existing) as unknown;
  } catch {
    manifest = undefined;
  }
  if (!isObject(manifest)) {
    return { action: "keep", notes: [`not a JSON object; add "scripts": { "eval": "${EVAL_SCRIPT}" } and "devDependencies": { "${PACKAGE_NAME}": "${spec}" } by hand`] };
  }
  const added: string[] = [];
  const notes: string[] = [];
  if (declaredSpec(manifest) === undefined) {
    const deps = manifest.devDependencies;
    if (deps === undefined || isObject(deps)) {
      manifest.devDependencies = { ...(deps ?? {}), [PACKAGE_NAME]: spec };
      added.push(`devDependencies.${PACKAGE_NAME}`);
    } else {
      notes.push(`its devDependencies is not an object; add "${PACKAGE_NAME}": "${spec}" by hand`);
    }
  }
  const scripts = manifest.scripts;
  if (scripts === undefined || (isObject(scripts) && scripts.eval === undefined)) {
    manifest.scripts = { ...(scripts ?? {}), eval: EVAL_SCRIPT };
    added.push("scripts.eval");
  } else if (!isObject(scripts)) {
    notes.push(`its scripts is not an object; add "eval": "${EVAL_SCRIPT}" by hand`);
  } else if (scripts.eval !== EVAL_SCRIPT) {
    notes.push(`its "eval" script is ${JSON.stringify(scripts.eval)}, kept; Retrace's would be "${EVAL_SCRIPT}"`);
  }
  if (added.length === 0) return { action: "keep", notes };
  const text = `${JSON.stringify(manifest, null, indentOf(existing))}${existing.endsWith("\n") ? "\n" : ""}`;
  return { action: "update", text, added, notes };
}

/** Whether package.json's `eval` script is the one init writes (so `npm run eval` runs the suite). */
export function hasEvalScript(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    const manifest = JSON.parse(text) as unknown;
    return isObject(manifest) && isObject(manifest.scripts) && manifest.scripts.eval === EVAL_SCRIPT;
  } catch {
    return false;
  }
}

/** `dir`'s package.json text, or undefined when it has none. */
export function readPackageJson(dir: string): string | undefined {
  const file = join(dir, "package.json");
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}
