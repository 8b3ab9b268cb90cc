/**
 * Java and JavaScript call text → `{name: {param: "value text"}}`, as BFCL's tree-sitter
 * parsers (model_handler/parser/java_parser.py, js_parser.py) produce it. Every value stays a
 * string; the checker converts it by the declared type later. Kept from the official parsers:
 * only the first call is read; `name=value` arguments are named, a bare identifier (Java: also
 * a class literal; JavaScript: also `true`) goes under the key None, anything else positional
 * is dropped; a repeated name is an error. Java value text follows tree-sitter's node walk —
 * a top-level string loses its quotes, a method call keeps its source text, anything else is
 * its tokens joined without spaces, and `new X() {{ ... }}` loses its body (so a HashMap built
 * with an initializer block decodes to an empty map, as it does officially). This is a
 * hand-written reading of the same shapes, not tree-sitter itself.
 */
import { QuietError } from "./python/quiet-error.js";
import { PyDict, type PyValue } from "./python/value.js";

export class ForeignDecodeError extends QuietError {}

interface Argument {
  name: string | null;
  text: string;
}

const CALL_HEAD = /^\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(/;

export function parseForeignCall(source: string, language: "java" | "javascript"): PyValue {
  const head = CALL_HEAD.exec(source);
  if (!head) {
    if (/^\s*$/.test(source)) return new PyDict();
    throw new ForeignDecodeError(`Error parsing ${language} the source code.`);
  }
  const open = head[0].length - 1;
  const close = matching(source, open);
  if (close < 0) throw new ForeignDecodeError(`Error parsing ${language} the source code.`);
  const rest = source.slice(close + 1).trim();
  if (rest !== "" && rest !== ";") {
    // Java: `a(), b()` is no Java statement, and tree-sitter's ERROR node fails the parse.
    // JavaScript: it is a sequence expression, whose first child is no call expression, so the
    // official parser finds nothing and returns None (then not the expected format).
    if (language === "java" || !rest.startsWith(",")) throw new ForeignDecodeError(`Error parsing ${language} the source code.`);
    return null;
  }
  const args = new PyDict();
  for (const raw of splitTopLevel(source.slice(open + 1, close))) {
    const argument = readArgument(raw, language);
    if (!argument) continue;
    if (args.has(argument.name)) throw new ForeignDecodeError("Error: Multiple arguments with the same name are not supported.");
    args.set(argument.name, argument.text);
  }
  const name = (head[1] as string).replace(/\s+/g, "");
  return [PyDict.of([[name, args]])];
}

function readArgument(raw: string, language: "java" | "javascript"): Argument | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  const assignment = /^([A-Za-z_$][\w$]*)\s*=(?!=)\s*([\s\S]*)$/.exec(text);
  if (assignment) {
    const value = (assignment[2] as string).trim();
    if (!value) throw new ForeignDecodeError(`Error parsing ${language} the source code.`);
    return { name: assignment[1] as string, text: language === "java" ? javaValue(value) : jsValue(value) };
  }
  // Literals and keywords are their own node types in tree-sitter, not identifiers.
  const notIdentifiers = language === "java" ? ["true", "false", "null", "this", "super"] : ["false", "null", "undefined", "this", "super"];
  if (/^[A-Za-z_$][\w$]*$/.test(text) && !notIdentifiers.includes(text)) return { name: null, text };
  // JavaScript's `true` is kept as an unnamed argument too, as the official parser does.
  if (language === "javascript" && text === "true") return { name: null, text };
  if (language === "java" && /^[\w$.]+\s*\.\s*class$/.test(text)) return { name: null, text: text.replace(/\s+/g, "") };
  return undefined;
}

function jsValue(value: string): string {
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return value.slice(1, -1);
  return value;
}

function javaValue(value: string): string {
  if (/^"(?:[^"\\]|\\.)*"$/s.test(value) || /^'(?:[^'\\]|\\.)*'$/s.test(value)) return value.slice(1, -1);
  if (isMethodCall(value)) return value;
  const creation = /^new\s+([\w$.]+(?:\s*<[^(){}]*>)?)\s*(\[\s*\]|\()/.exec(value);
  if (creation) {
    const type = (creation[1] as string).replace(/\s+/g, "");
    if ((creation[2] as string).startsWith("[")) {
      const brace = value.indexOf("{", creation[0].length);
      return brace < 0 ? squeeze(value) : `new ${type}[]${squeeze(value.slice(brace))}`;
    }
    const open = creation[0].length - 1;
    const close = matching(value, open);
    if (close < 0) return squeeze(value);
    const args = splitTopLevel(value.slice(open + 1, close)).map((arg) => arg.trim()).filter(Boolean);
    return `new ${type}(${args.map((arg) => (isMethodCall(arg) ? arg : squeeze(arg))).join(", ")})`;
  }
  return squeeze(value);
}

function isMethodCall(text: string): boolean {
  const head = CALL_HEAD.exec(text);
  return head !== null && !/^\s*new\b/.test(text) && matching(text, head[0].length - 1) === text.length - 1;
}

/** Tokens joined without the spaces between them, string and char literals untouched. */
function squeeze(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' || char === "'") {
      const end = literalEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (!/\s/.test(char)) out += char;
  }
  return out;
}

function literalEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote) return i + 1;
  }
  return text.length;
}

/** The index of the bracket closing the one at `open`, skipping literals; -1 when unclosed. */
function matching(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' || char === "'" || char === "`") i = literalEnd(text, i) - 1;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char) && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"' || char === "'" || char === "`") i = literalEnd(text, i) - 1;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth--;
    else if (char === "<" && depth === 0 && /\bnew\s+[\w$.]+\s*$/.test(text.slice(start, i))) {
      // `new HashMap<String, Integer>()`: the comma inside the type arguments is not a separator.
      const end = text.indexOf(">", i);
      if (end > 0) i = end;
    } else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
