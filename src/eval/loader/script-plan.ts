/**
 * An eval file that imports nothing but the running Retrace and Node's built-ins, statically,
 * and exports nothing, runs as a script instead of a module: Node 20 keeps no compiled code
 * of an ES module between runs, while a script's compiled code can be kept in V8's code cache
 * (script-load.ts), so a suite run again — in CI, in a watch loop — does not parse and compile
 * its eval file again. The script is the file's own text with each import statement blanked
 * and its bindings declared before the first line, in a strict async function: every line and
 * column stays where the file has it, and the file behaves as its module would:
 *
 * - its imports are the very modules `import` gives (the loader imports them first), bound as
 *   constants before its first statement runs; a name a module does not export fails the load
 *   with Node's own SyntaxError, before any of the file runs;
 * - strict mode, `this` undefined, top-level `await`, declarations private to the file;
 * - a file this cannot express exactly is imported as a module, as before: an export,
 *   `import.meta`, a dynamic import, an import with attributes or a comment inside its clause,
 *   or after other code on its line, a name that is not a plain identifier; `eval` or
 *   `Function(` (code made at run time cannot `import()` from a script on Node 20 without a
 *   warning), a source map of its own (`--enable-source-maps` maps a module's frames, not a
 *   script's). So is a file whose function body does not parse on its own (a brace too many
 *   would close the script's function early): Node then reports the file's own error.
 *
 * What a module refuses and a function body accepts (a top-level `return`, `arguments` or
 * `new.target`, an HTML-like comment, `await` as a name inside a function) runs instead of
 * failing to load, and an import of a built-in is bound once, as it loads
 * (`syncBuiltinESMExports` does not reach it).
 */
import type { StaticImport } from "es-module-lexer";

/** One module the script imports: what to import (a built-in's name or a face's URL) and how its bindings are named. */
export interface ScriptImport {
  /** As the file writes it, for Node's error about a missing export. */
  readonly specifier: string;
  /** What the loader imports: a built-in module's name or the running Retrace face's URL. */
  readonly from: string;
  /** [exported name, local name] pairs (a default import is ["default", local]). */
  readonly names: readonly (readonly [string, string])[];
  /** The local name of `import * as name`. */
  readonly namespace: string | undefined;
}

export interface ScriptPlan {
  /** A function expression: `(async function (<parameter>) { <body> })`, taking each module's namespace in `imports` order. */
  readonly source: string;
  /** The function's one parameter: a name the file does not use. */
  readonly parameter: string;
  /** The function's body: the imports' bindings, then the file's text with its import statements blanked. */
  readonly body: string;
  /** How many characters precede the file's own first line (its columns are shifted back by as many). */
  readonly prefix: number;
  readonly imports: readonly ScriptImport[];
  /** A compiled TypeScript file's source map (JSON text). */
  readonly map?: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;
/** What keeps a file a module whatever its imports: code made at run time, or a source map of its own. */
const MODULE_ONLY = /\beval\b|\bFunction\s*\(|[#@] sourceMappingURL=/;

/**
 * The script for `text`, whose imports are `entries` (each static, of a module in `targets` at
 * the same index); undefined when a script would not behave exactly as the module does.
 */
export function scriptPlan(text: string, entries: readonly StaticImport[], targets: readonly string[]): ScriptPlan | undefined {
  if (MODULE_ONLY.test(text)) return undefined;
  const imports: ScriptImport[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.type !== "static" || entry.phase !== null || entry.attributes !== null) return undefined;
    // Blanked to a `;`, an import after other code on its line would end that code's statement, which the module refuses.
    if (!startsStatement(text, entry.importStart)) return undefined;
    // Between `import` and the specifier's opening quote.
    const clause = importClause(text.slice(entry.importStart + "import".length, entry.start - 1));
    if (!clause) return undefined;
    imports.push({ specifier: entry.specifier, from: targets[index] as string, ...clause });
  }
  let parameter = "__retraceImports";
  while (text.includes(parameter)) parameter += "_";
  const declarations = imports
    .map(({ names, namespace }, index) => {
      const module = `${parameter}[${index}]`;
      const named = names.length ? `const {${names.map(([name, local]) => `${JSON.stringify(name)}: ${local}`).join(", ")}} = ${module};` : "";
      return named + (namespace ? `const ${namespace} = ${module};` : "");
    })
    .join("");
  const head = `"use strict";${declarations}`;
  const opening = `(async function (${parameter}) {`;
  const body = `${head}${blanked(text, entries)}`;
  return { source: `${opening}${body}\n})`, parameter, body, prefix: opening.length + head.length, imports };
}

/** Whether only spaces and tabs stand between the line's start (or a `;`) and `at`: anything else is a module's to judge. */
function startsStatement(text: string, at: number): boolean {
  let index = at - 1;
  while (index >= 0 && (text[index] === " " || text[index] === "\t" || text[index] === "\ufeff")) index--;
  return index < 0 || /[\n\r\u2028\u2029;]/.test(text[index] as string);
}

/**
 * The bindings of an import clause (`{ a, b as c }`, `* as ns`, `name`, or a default and one of
 * the other two; nothing for `import "x"`), or undefined for anything else.
 */
function importClause(clause: string): Pick<ScriptImport, "names" | "namespace"> | undefined {
  const words = clause.trim();
  if (words === "") return { names: [], namespace: undefined };
  const bound = /^([^]*?)(?:^|\s|(?<=\}))from$/.exec(words)?.[1]?.trim();
  if (!bound) return undefined;
  const names: [string, string][] = [];
  const [, defaulted, rest = ""] = /^([A-Za-z_$][\w$]*)(?:\s*,\s*([^]*))?$/.exec(bound) ?? [undefined, undefined, bound];
  if (defaulted !== undefined) {
    names.push(["default", defaulted]);
    if (rest === "") return { names, namespace: undefined };
  }
  const star = /^\*\s*as\s+([A-Za-z_$][\w$]*)$/.exec(rest);
  if (star) return { names, namespace: star[1] };
  if (!rest.startsWith("{") || !rest.endsWith("}")) return undefined;
  const inner = rest.slice(1, -1).trim();
  const items = inner === "" ? [] : inner.split(",").map((item) => item.trim());
  // One trailing comma is allowed, as in `{ a, b, }`.
  if (items.length > 1 && items.at(-1) === "") items.pop();
  for (const item of items) {
    const parts = item.split(/\s+/);
    if (parts.length !== 1 && (parts.length !== 3 || parts[1] !== "as")) return undefined;
    const name = parts[0] as string;
    const local = parts[parts.length - 1] as string;
    if (!IDENTIFIER.test(name) || !IDENTIFIER.test(local)) return undefined;
    names.push([name, local]);
  }
  return { names, namespace: undefined };
}

/**
 * `text` with a hashbang and every import statement turned into blanks (a `;` where each
 * began, so the statements around it stay apart): same lines, same columns.
 */
function blanked(text: string, entries: readonly StaticImport[]): string {
  const places: [number, number][] = entries.map((entry) => [entry.importStart, entry.importEnd]);
  if (text.startsWith("#!")) {
    const end = text.search(LINE_BREAK);
    places.unshift([0, end === -1 ? text.length : end]);
  }
  let out = "";
  let last = 0;
  for (const [start, end] of places.sort((a, b) => a[0] - b[0])) {
    out += text.slice(last, start) + ";" + text.slice(start + 1, end).replace(/[^\n\r\u2028\u2029]/g, " ");
    last = end;
  }
  return out + text.slice(last);
}
