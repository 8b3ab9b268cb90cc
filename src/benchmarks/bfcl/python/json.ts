/**
 * `json.loads` with Python's result types. `JSON.parse("10.0")` gives 10 and so loses what the
 * BFCL checker tests (`10.0` is a float, a type error for an integer parameter), so numbers are
 * typed from their lexeme: an integer lexeme becomes an int (bigint), anything with a fraction
 * or an exponent a float. Like Python, NaN, Infinity and -Infinity are accepted.
 */
import { QuietError } from "./quiet-error.js";
import { PyDict, type PyValue } from "./value.js";

export class PyJsonError extends QuietError {
  constructor(message: string, readonly position: number) {
    super(`${message} at char ${position}`);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

export function pyJsonLoads(text: string): PyValue {
  const parser = new Parser(text);
  parser.skipSpace();
  const value = parser.value();
  parser.skipSpace();
  if (parser.at < text.length) throw new PyJsonError("Extra data", parser.at);
  return value;
}

class Parser {
  at = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    const text = this.text;
    let at = this.at;
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at++;
      else break;
    }
    this.at = at;
  }

  value(): PyValue {
    const text = this.text;
    const c = text[this.at];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.word("true", true);
      case "f":
        return this.word("false", false);
      case "n":
        return this.word("null", null);
      case "N":
        return this.word("NaN", Number.NaN);
      case "I":
        return this.word("Infinity", Number.POSITIVE_INFINITY);
      default:
        if (c === "-" && text.startsWith("-Infinity", this.at)) return this.word("-Infinity", Number.NEGATIVE_INFINITY);
        return this.number();
    }
  }

  word<T extends PyValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) throw new PyJsonError("Expecting value", this.at);
    this.at += word.length;
    return value;
  }

  number(): PyValue {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (!match) throw new PyJsonError("Expecting value", this.at);
    this.at += match[0].length;
    return match[1] === undefined && match[2] === undefined ? BigInt(match[0]) : Number(match[0]);
  }

  string(): string {
    const text = this.text;
    let at = this.at + 1;
    let out = "";
    let start = at;
    for (;;) {
      if (at >= text.length) throw new PyJsonError("Unterminated string starting", this.at);
      const c = text.charCodeAt(at);
      if (c === 0x22) break;
      if (c < 0x20) throw new PyJsonError("Invalid control character", at);
      if (c !== 0x5c) {
        at++;
        continue;
      }
      out += text.slice(start, at);
      const escape = text[at + 1];
      switch (escape) {
        case '"':
        case "\\":
        case "/":
          out += escape;
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          const hex = text.slice(at + 2, at + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PyJsonError("Invalid \\uXXXX escape", at);
          out += String.fromCharCode(parseInt(hex, 16));
          at += 4;
          break;
        }
        default:
          throw new PyJsonError("Invalid \\escape", at);
      }
      at += 2;
      start = at;
    }
    out += text.slice(start, at);
    this.at = at + 1;
    return out;
  }

  array(): PyValue[] {
    this.at++;
    const items: PyValue[] = [];
    this.skipSpace();
    if (this.text[this.at] === "]") {
      this.at++;
      return items;
    }
    for (;;) {
      this.skipSpace();
      items.push(this.value());
      this.skipSpace();
      const c = this.text[this.at++];
      if (c === "]") return items;
      if (c !== ",") throw new PyJsonError("Expecting ',' delimiter", this.at - 1);
    }
  }

  object(): PyDict {
    this.at++;
    const dict = new PyDict();
    this.skipSpace();
    if (this.text[this.at] === "}") {
      this.at++;
      return dict;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] !== '"') throw new PyJsonError("Expecting property name enclosed in double quotes", this.at);
      const key = this.string();
      this.skipSpace();
      if (this.text[this.at++] !== ":") throw new PyJsonError("Expecting ':' delimiter", this.at - 1);
      this.skipSpace();
      dict.set(key, this.value());
      this.skipSpace();
      const c = this.text[this.at++];
      if (c === "}") return dict;
      if (c !== ",") throw new PyJsonError("Expecting ',' delimiter", this.at - 1);
    }
  }
}

/**
 * A value already parsed by `JSON.parse` as Python would have it, for data whose numbers carry
 * no int/float question (the checker cases' decoded Java/JavaScript values are all strings).
 */
export function fromJson(value: unknown): PyValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value === "object") return PyDict.of(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromJson(v)]));
  throw new TypeError(`not a JSON value: ${typeof value}`);
}
