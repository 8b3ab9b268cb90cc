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
 * - a file this cannot express exactly (an export, `import.meta`, a dynamic import, an import
 *   with attributes or a comment inside its clause, a name that is not a plain identifier) is
 *   imported as a module, as before. So is a file whose script does not compile: Node then
 *   reports the file's own error.
 *
 * What a module refuses and a function body accepts (a top-level `return`, `arguments` or
 * `new.target`) runs instead of failing to load.
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
  /** A function expression: `(async function (imports) { … })`, taking each module's namespace in `imports` order. */
  readonly source: string;
  /** How many characters precede the file's own first line (its columns are shifted back by as many). */
  readonly prefix: number;
  readonly imports: readonly ScriptImport[];
  /** A compiled TypeScript file's source map (JSON text). */
  readonly map?: string;
}

const PARAMETER = "__retraceImports";
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * The script for `text`, whose imports are `entries` (each static, of a module in `targets` at
 * the same index); undefined when a script would not behave exactly as the module does.
 */
export function scriptPlan(text: string, entries: readonly StaticImport[], targets: readonly string[]): ScriptPlan | undefined {
  const imports: ScriptImport[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.type !== "static" || entry.phase !== null || entry.attributes !== null) return undefined;
    // Between `import` and the specifier's opening quote.
    const clause = importClause(text.slice(entry.importStart + "import".length, entry.start - 1));
    if (!clause) return undefined;
    imports.push({ specifier: entry.specifier, from: targets[index] as string, ...clause });
  }
  const declarations = imports
    .map(({ names, namespace }, index) => {
      const module = `${PARAMETER}[${index}]`;
      const named = names.length ? `const {${names.map(([name, local]) => `${JSON.stringify(name)}: ${local}`).join(", ")}} = ${module};` : "";
      return named + (namespace ? `const ${namespace} = ${module};` : "");
    })
    .join("");
  const prefix = `(async function (${PARAMETER}) {"use strict";${declarations}`;
  return { source: `${prefix}${blanked(text, entries)}\n})`, prefix: prefix.length, imports };
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
