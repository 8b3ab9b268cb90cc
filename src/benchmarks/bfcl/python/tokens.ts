/**
 * Python's tokenizer for one expression: names, numbers (hex/octal/binary, `_` separators,
 * floats kept apart from ints), strings with prefixes and escapes, operators, comments and
 * line joining inside brackets. What Python rejects is rejected here (`007`, `1__0`, an
 * unclosed bracket, a stray non-printable character), since a rejected output fails to decode.
 */
import { QuietError } from "./quiet-error.js";
export class PySyntaxError extends QuietError {}

export type Token =
  | { kind: "name"; text: string; start: number; end: number }
  | { kind: "int"; value: bigint; text: string; start: number; end: number }
  | { kind: "float"; value: number; text: string; start: number; end: number }
  /** A number Python reads as complex (`1j`): valid syntax, but no BFCL value. */
  | { kind: "imaginary"; text: string; start: number; end: number }
  | { kind: "string"; value: string; prefix: string; text: string; start: number; end: number }
  | { kind: "op"; text: string; start: number; end: number }
  | { kind: "newline"; text: string; start: number; end: number }
  | { kind: "end"; text: string; start: number; end: number };

export const KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
  "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
  "pass", "raise", "return", "try", "while", "with", "yield",
]);

const OPERATORS = [
  "**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=", "==",
  ">=", ">>", "@=", "^=", "|=", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "+", "-", "*", "/", "%", "<", ">", "=",
  "&", "|", "^", "~", "@",
];

// Longest operator first, grouped by first character: one lookup instead of a scan of the list.
const OPERATORS_BY_FIRST = new Map<string, string[]>();
for (const op of OPERATORS) {
  const list = OPERATORS_BY_FIRST.get(op[0] as string) ?? [];
  list.push(op);
  OPERATORS_BY_FIRST.set(op[0] as string, list);
}
for (const list of OPERATORS_BY_FIRST.values()) list.sort((a, b) => b.length - a.length);

function operatorAt(source: string, at: number): string | undefined {
  const candidates = OPERATORS_BY_FIRST.get(source[at] as string);
  if (!candidates) return undefined;
  for (const op of candidates) if (op.length === 1 || source.startsWith(op, at)) return op;
  return undefined;
}

const NAME_START = /[\p{L}\p{Nl}_\u2118\u212e\u309b\u309c]/u;
const NAME_CONTINUE = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_\u00b7\u0387\u1369-\u1371\u19da\u2118\u212e\u309b\u309c]/u;
const STRING_PREFIX = /^(?:r|u|b|br|rb|f|fr|rf)$/i;

const DECIMAL = /(?:0(?:_?0)*|[1-9](?:_?[0-9])*)/y;
const NUMBER_FORMS: readonly [RegExp, "int" | "float" | "hex"][] = [
  [/0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+/y, "hex"],
  [/(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.)(?:[eE][-+]?[0-9](?:_?[0-9])*)?|[0-9](?:_?[0-9])*[eE][-+]?[0-9](?:_?[0-9])*/y, "float"],
];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const brackets: string[] = [];
  let at = 0;
  const length = source.length;
  while (at < length) {
    const c = source.charCodeAt(at);
    // space, tab, form feed
    if (c === 0x20 || c === 0x09 || c === 0x0c) {
      at++;
      continue;
    }
    if (c === 0x0a || c === 0x0d) {
      const width = c === 0x0d && source.charCodeAt(at + 1) === 0x0a ? 2 : 1;
      if (brackets.length === 0) tokens.push({ kind: "newline", text: "\n", start: at, end: at + width });
      at += width;
      continue;
    }
    if (c === 0x23 /* # */) {
      while (at < length && source[at] !== "\n" && source[at] !== "\r") at++;
      continue;
    }
    if (c === 0x5c /* \ */) {
      const next = source[at + 1];
      if (next === "\n") {
        at += 2;
        continue;
      }
      if (next === "\r") {
        at += source[at + 2] === "\n" ? 3 : 2;
        continue;
      }
      throw new PySyntaxError("unexpected character after line continuation character");
    }
    const char = source[at] as string;
    if ((c >= 0x30 && c <= 0x39) || (c === 0x2e && isDigit(source.charCodeAt(at + 1)))) {
      at = readNumber(source, at, tokens);
      continue;
    }
    if (char === "'" || char === '"') {
      at = readString(source, at, "", tokens);
      continue;
    }
    if (isNameStart(source, at)) {
      let end = at + 1;
      let ascii = c < 0x80;
      while (end < length && isNameContinue(source, end)) {
        if (source.charCodeAt(end) >= 0x80) ascii = false;
        end++;
      }
      const raw = source.slice(at, end);
      // Python reads identifiers in NFKC form.
      const text = ascii ? raw : raw.normalize("NFKC");
      if (end - at <= 2 && (source[end] === "'" || source[end] === '"') && STRING_PREFIX.test(text)) {
        at = readString(source, end, text, tokens, at);
        continue;
      }
      tokens.push({ kind: "name", text, start: at, end });
      at = end;
      continue;
    }
    const operator = operatorAt(source, at);
    if (!operator) throw new PySyntaxError(`invalid character ${JSON.stringify(char)} (U+${c.toString(16).toUpperCase().padStart(4, "0")})`);
    if (operator === "(" || operator === "[" || operator === "{") brackets.push(operator);
    else if (operator === ")" || operator === "]" || operator === "}") {
      const open = brackets.pop();
      if (open === undefined) throw new PySyntaxError(`unmatched '${operator}'`);
      if ("([{"[")]}".indexOf(operator)] !== open) throw new PySyntaxError(`closing parenthesis '${operator}' does not match opening parenthesis '${open}'`);
    }
    tokens.push({ kind: "op", text: operator, start: at, end: at + operator.length });
    at += operator.length;
  }
  if (brackets.length > 0) throw new PySyntaxError(`'${brackets[brackets.length - 1]}' was never closed`);
  tokens.push({ kind: "end", text: "", start: length, end: length });
  return tokens;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

function isNameStart(source: string, at: number): boolean {
  const c = source.charCodeAt(at);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f) return true;
  if (c < 0x80) return false;
  return NAME_START.test(String.fromCodePoint(source.codePointAt(at) as number));
}

function isNameContinue(source: string, at: number): boolean {
  const c = source.charCodeAt(at);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || isDigit(c)) return true;
  if (c < 0x80) return false;
  // Low surrogates continue the code point their high surrogate started.
  if (c >= 0xdc00 && c <= 0xdfff) return true;
  return NAME_CONTINUE.test(String.fromCodePoint(source.codePointAt(at) as number));
}

function readNumber(source: string, start: number, tokens: Token[]): number {
  // The common case, a plain decimal int ("10", not "010", "1.5", "1e3", "1_0", "0x1", "2j"): no regular expression.
  let stop = start;
  while (isDigit(source.charCodeAt(stop))) stop++;
  const after = source.charCodeAt(stop);
  const continues =
    stop < source.length &&
    (after === 0x2e || after === 0x5f || after === 0x65 || after === 0x45 || after === 0x6a || after === 0x4a || (after < 0x80 ? isNameStart(source, stop) : isNameContinue(source, stop)));
  const plain = stop > start && !continues;
  if (plain && (source[start] !== "0" || stop === start + 1)) {
    const text = source.slice(start, stop);
    tokens.push({ kind: "int", value: BigInt(text), text, start, end: stop });
    return stop;
  }
  for (const [pattern, form] of NUMBER_FORMS) {
    pattern.lastIndex = start;
    const match = pattern.exec(source);
    if (!match) continue;
    const text = match[0];
    const end = finishNumber(source, start + text.length);
    if (end.imaginary) {
      tokens.push({ kind: "imaginary", text: source.slice(start, end.at), start, end: end.at });
      return end.at;
    }
    const digits = text.replace(/_/g, "");
    if (form === "hex") tokens.push({ kind: "int", value: BigInt(digits), text, start, end: end.at });
    else tokens.push({ kind: "float", value: Number(digits), text, start, end: end.at });
    return end.at;
  }
  DECIMAL.lastIndex = start;
  const match = DECIMAL.exec(source);
  // "007" and friends: Python forbids leading zeros in a decimal integer.
  if (!match || isDigit(source.charCodeAt(start + match[0].length))) throw new PySyntaxError("leading zeros in decimal integer literals are not permitted");
  const text = match[0];
  const end = finishNumber(source, start + text.length);
  if (end.imaginary) tokens.push({ kind: "imaginary", text: source.slice(start, end.at), start, end: end.at });
  else tokens.push({ kind: "int", value: BigInt(text.replace(/_/g, "")), text, start, end: end.at });
  return end.at;
}

function finishNumber(source: string, at: number): { at: number; imaginary: boolean } {
  const next = source[at];
  if (next === "j" || next === "J") return { at: at + 1, imaginary: true };
  if (next === "_" || (next !== undefined && isNameContinue(source, at))) {
    // `1if x else y` is still accepted by CPython 3.11 (with a warning); anything else is not.
    if (!/^(?:if|else|and|or|in|is|not)\b/.test(source.slice(at, at + 5))) throw new PySyntaxError("invalid decimal literal");
  }
  return { at, imaginary: false };
}

function readString(source: string, quoteAt: number, prefix: string, tokens: Token[], start = quoteAt): number {
  const quote = source[quoteAt] as string;
  const triple = source.startsWith(quote.repeat(3), quoteAt);
  const delimiter = triple ? quote.repeat(3) : quote;
  const raw = /r/i.test(prefix);
  let at = quoteAt + delimiter.length;
  let value = "";
  for (;;) {
    if (at >= source.length) throw new PySyntaxError(triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    const char = source[at] as string;
    if (source.startsWith(delimiter, at)) {
      at += delimiter.length;
      break;
    }
    if (!triple && (char === "\n" || char === "\r")) throw new PySyntaxError("unterminated string literal");
    if (char !== "\\") {
      // A run of plain characters in one slice.
      let end = at + 1;
      while (end < source.length) {
        const next = source[end];
        if (next === "\\" || next === quote || next === "\n" || next === "\r") break;
        end++;
      }
      value += source.slice(at, end);
      at = end;
      continue;
    }
    const next = source[at + 1];
    if (next === undefined) throw new PySyntaxError("unterminated string literal");
    if (raw) {
      // A raw string keeps the backslash, and the backslash still escapes a quote.
      value += char + next;
      at += 2;
      continue;
    }
    const escaped = readEscape(source, at, /b/i.test(prefix));
    value += escaped.text;
    at = escaped.end;
  }
  tokens.push({ kind: "string", value, prefix: prefix.toLowerCase(), text: source.slice(start, at), start, end: at });
  return at;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v",
};

function readEscape(source: string, at: number, bytes: boolean): { text: string; end: number } {
  const next = source[at + 1] as string;
  if (next === "\n") return { text: "", end: at + 2 };
  if (next === "\r") return { text: "", end: source[at + 2] === "\n" ? at + 3 : at + 2 };
  const simple = SIMPLE_ESCAPES[next];
  if (simple !== undefined) return { text: simple, end: at + 2 };
  if (/[0-7]/.test(next)) {
    const match = /^[0-7]{1,3}/.exec(source.slice(at + 1, at + 4)) as RegExpExecArray;
    return { text: String.fromCodePoint(parseInt(match[0], 8)), end: at + 1 + match[0].length };
  }
  const width = next === "x" ? 2 : !bytes && next === "u" ? 4 : !bytes && next === "U" ? 8 : 0;
  if (width > 0) {
    const hex = source.slice(at + 2, at + 2 + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new PySyntaxError(`truncated \\${next} escape`);
    const code = parseInt(hex, 16);
    if (code > 0x10ffff) throw new PySyntaxError(`illegal Unicode character`);
    return { text: String.fromCodePoint(code), end: at + 2 + width };
  }
  if (!bytes && next === "N") throw new PySyntaxError("\\N{...} escapes are not supported by this decoder");
  // An unknown escape keeps its backslash (Python warns, and accepts it).
  return { text: `\\${next}`, end: at + 2 };
}
