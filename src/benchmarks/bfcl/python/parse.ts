/**
 * A recursive-descent parser for one Python expression, following CPython 3.11's grammar for
 * the forms model outputs use. Comprehensions, lambdas, f-strings, bytes and complex numbers
 * parse to `Unsupported` (or fail): BFCL's decoder fails on each of them anyway.
 */
import { ELLIPSIS, type BinaryOperator, type CompareOperator, type Expr, type Keyword } from "./ast.js";
import { KEYWORDS, PySyntaxError, tokenize, type Token } from "./tokens.js";

/** `ast.parse(source, mode="eval").body`. */
export function parseExpression(source: string): Expr {
  const parser = new Parser(source, tokenize(source));
  const body = parser.starExpressions();
  parser.skipNewlines();
  parser.expectEnd();
  return body;
}

class Parser {
  #at = 0;
  constructor(readonly source: string, readonly tokens: Token[]) {}

  get #token(): Token {
    return this.tokens[this.#at] as Token;
  }

  #isOp(text: string): boolean {
    const token = this.#token;
    return token.kind === "op" && token.text === text;
  }

  #isName(text: string): boolean {
    const token = this.#token;
    return token.kind === "name" && token.text === text;
  }

  #eatOp(text: string): boolean {
    if (!this.#isOp(text)) return false;
    this.#at++;
    return true;
  }

  #eatName(text: string): boolean {
    if (!this.#isName(text)) return false;
    this.#at++;
    return true;
  }

  #expectOp(text: string): void {
    if (!this.#eatOp(text)) throw this.#error(`expected '${text}'`);
  }

  #error(message: string): PySyntaxError {
    const token = this.#token;
    return new PySyntaxError(`${message} at ${token.start} (found ${token.kind === "end" ? "end of input" : JSON.stringify(token.text)})`);
  }

  skipNewlines(): void {
    while (this.#token.kind === "newline") this.#at++;
  }

  expectEnd(): void {
    if (this.#token.kind !== "end") throw this.#error("invalid syntax");
  }

  /** A top-level expression list: `a, b` is a tuple. */
  starExpressions(): Expr {
    const first = this.#starExpression();
    if (!this.#isOp(",")) return first;
    const elts = [first];
    while (this.#eatOp(",")) {
      if (this.#endsList()) break;
      elts.push(this.#starExpression());
    }
    return { type: "Tuple", elts, parenthesised: false };
  }

  #endsList(): boolean {
    const token = this.#token;
    return token.kind === "end" || token.kind === "newline" || (token.kind === "op" && (token.text === ")" || token.text === "]" || token.text === "}"));
  }

  #starExpression(): Expr {
    if (this.#eatOp("*")) return { type: "Starred", value: this.#bitOr() };
    return this.#namedExpression();
  }

  #namedExpression(): Expr {
    const start = this.#token.start;
    const value = this.expression();
    if (this.#isOp(":=")) {
      if (value.type !== "Name") throw this.#error("cannot use assignment expressions here");
      this.#at++;
      this.expression();
      return { type: "Unsupported", what: "assignment expression", source: this.source.slice(start, this.#token.start) };
    }
    return value;
  }

  expression(): Expr {
    const simple = this.#simpleValue();
    if (simple) return simple;
    if (this.#isName("lambda")) return this.#lambda();
    const body = this.#disjunction();
    if (!this.#eatName("if")) return body;
    const test = this.#disjunction();
    if (!this.#eatName("else")) throw this.#error("expected 'else' after 'if' expression");
    return { type: "IfExp", test, body, orelse: this.expression() };
  }

  /**
   * A lone literal or name followed by `,` `)` `]` `}` `:` or the end: most argument values.
   * It skips the descent through every precedence level, and gives the same node it would.
   */
  #simpleValue(): Expr | undefined {
    const token = this.#token;
    const next = this.tokens[this.#at + 1] as Token | undefined;
    if (!next || !(next.kind === "end" || (next.kind === "op" && (next.text === "," || next.text === ")" || next.text === "]" || next.text === "}" || next.text === ":")))) return undefined;
    switch (token.kind) {
      case "int":
      case "float":
        this.#at++;
        return { type: "Constant", value: token.value };
      case "string":
        if (token.prefix !== "" && token.prefix !== "r" && token.prefix !== "u") return undefined;
        this.#at++;
        return { type: "Constant", value: token.value };
      case "name":
        if (token.text === "True" || token.text === "False" || token.text === "None") {
          this.#at++;
          return { type: "Constant", value: token.text === "None" ? null : token.text === "True" };
        }
        if (KEYWORDS.has(token.text)) return undefined;
        this.#at++;
        return { type: "Name", id: token.text };
      default:
        return undefined;
    }
  }

  #lambda(): Expr {
    const start = this.#token.start;
    this.#at++;
    while (!this.#isOp(":")) {
      if (this.#token.kind === "end") throw this.#error("invalid lambda");
      this.#at++;
    }
    this.#at++;
    this.expression();
    return { type: "Unsupported", what: "lambda", source: this.source.slice(start, this.#token.start) };
  }

  #disjunction(): Expr {
    const first = this.#conjunction();
    if (!this.#isName("or")) return first;
    const values = [first];
    while (this.#eatName("or")) values.push(this.#conjunction());
    return { type: "BoolOp", op: "or", values };
  }

  #conjunction(): Expr {
    const first = this.#inversion();
    if (!this.#isName("and")) return first;
    const values = [first];
    while (this.#eatName("and")) values.push(this.#inversion());
    return { type: "BoolOp", op: "and", values };
  }

  #inversion(): Expr {
    if (this.#eatName("not")) return { type: "UnaryOp", op: "not", operand: this.#inversion() };
    return this.#comparison();
  }

  #comparison(): Expr {
    const left = this.#bitOr();
    const ops: CompareOperator[] = [];
    const comparators: Expr[] = [];
    for (;;) {
      const op = this.#compareOperator();
      if (!op) break;
      ops.push(op);
      comparators.push(this.#bitOr());
    }
    return ops.length ? { type: "Compare", left, ops, comparators } : left;
  }

  #compareOperator(): CompareOperator | undefined {
    const token = this.#token;
    if (token.kind === "op" && ["==", "!=", "<", "<=", ">", ">="].includes(token.text)) {
      this.#at++;
      return token.text as CompareOperator;
    }
    if (this.#eatName("in")) return "in";
    if (this.#isName("not") && this.tokens[this.#at + 1]?.kind === "name" && this.tokens[this.#at + 1]?.text === "in") {
      this.#at += 2;
      return "not in";
    }
    if (this.#eatName("is")) return this.#eatName("not") ? "is not" : "is";
    return undefined;
  }

  /** One level of left-associative binary operators; `level` names the operand's level. */
  #binary(level: number, operators: readonly string[]): Expr {
    let left = this.#next(level);
    for (;;) {
      const token = this.#token;
      if (token.kind !== "op" || !operators.includes(token.text)) return left;
      this.#at++;
      left = { type: "BinOp", op: token.text as BinaryOperator, left, right: this.#next(level) };
    }
  }

  #bitOr(): Expr {
    return this.#binary(1, ["|"]);
  }

  #next(level: number): Expr {
    switch (level) {
      case 1:
        return this.#binary(2, ["^"]);
      case 2:
        return this.#binary(3, ["&"]);
      case 3:
        return this.#binary(4, ["<<", ">>"]);
      case 4:
        return this.#binary(5, ["+", "-"]);
      case 5:
        return this.#binary(6, ["*", "/", "//", "%", "@"]);
      default:
        return this.#factor();
    }
  }

  #factor(): Expr {
    const token = this.#token;
    if (token.kind === "op" && (token.text === "-" || token.text === "+" || token.text === "~")) {
      this.#at++;
      return { type: "UnaryOp", op: token.text, operand: this.#factor() };
    }
    return this.#power();
  }

  #power(): Expr {
    if (this.#isName("await")) throw this.#error("'await' outside function");
    const left = this.#primary();
    if (!this.#eatOp("**")) return left;
    return { type: "BinOp", op: "**", left, right: this.#factor() };
  }

  #primary(): Expr {
    let value = this.#atom();
    for (;;) {
      if (this.#eatOp(".")) {
        const token = this.#token;
        if (token.kind !== "name" || KEYWORDS.has(token.text)) throw this.#error("invalid syntax");
        this.#at++;
        value = { type: "Attribute", value, attr: token.text };
      } else if (this.#eatOp("(")) {
        value = this.#call(value);
      } else if (this.#eatOp("[")) {
        value = { type: "Subscript", value, slice: this.#slices() };
        this.#expectOp("]");
      } else {
        return value;
      }
    }
  }

  #call(func: Expr): Expr {
    const args: Expr[] = [];
    const keywords: Keyword[] = [];
    const start = this.#token.start;
    while (!this.#isOp(")")) {
      if (this.#eatOp("**")) {
        keywords.push({ arg: null, value: this.expression() });
      } else if (this.#eatOp("*")) {
        args.push({ type: "Starred", value: this.expression() });
      } else if (this.#token.kind === "name" && this.tokens[this.#at + 1]?.kind === "op" && this.tokens[this.#at + 1]?.text === "=") {
        const name = this.#token.text;
        if (KEYWORDS.has(name)) throw this.#error("cannot assign to keyword");
        // A repeated keyword is refused by the compiler, not by ast.parse: the last value wins.
        this.#at += 2;
        keywords.push({ arg: name, value: this.expression() });
      } else {
        const value = this.#namedExpression();
        if (this.#isName("for") || this.#isName("async")) return this.#comprehension("generator expression", start, ")");
        if (keywords.some((keyword) => keyword.arg === null)) throw this.#error("positional argument follows keyword argument unpacking");
        if (keywords.length > 0) throw this.#error("positional argument follows keyword argument");
        args.push(value);
      }
      if (!this.#eatOp(",")) break;
    }
    this.#expectOp(")");
    return { type: "Call", func, args, keywords };
  }

  /** Skips to the closing bracket: valid Python the decoder cannot use. */
  #comprehension(what: string, start: number, close: string): Expr {
    let depth = 0;
    while (depth > 0 || !this.#isOp(close)) {
      const token = this.#token;
      if (token.kind === "end") throw this.#error("invalid syntax");
      if (token.kind === "op" && "([{".includes(token.text)) depth++;
      if (token.kind === "op" && ")]}".includes(token.text)) depth--;
      this.#at++;
    }
    const source = this.source.slice(start, this.#token.start);
    this.#at++;
    return { type: "Unsupported", what, source };
  }

  #slices(): Expr {
    const first = this.#slice();
    if (!this.#isOp(",")) return first;
    const elts = [first];
    while (this.#eatOp(",")) {
      if (this.#isOp("]")) break;
      elts.push(this.#slice());
    }
    return { type: "Tuple", elts, parenthesised: false };
  }

  #slice(): Expr {
    const lower = this.#isOp(":") ? null : this.#starExpression();
    if (!this.#eatOp(":")) {
      if (lower === null) throw this.#error("invalid syntax");
      return lower;
    }
    const upper = this.#isOp(":") || this.#isOp("]") || this.#isOp(",") ? null : this.expression();
    let step: Expr | null = null;
    if (this.#eatOp(":")) step = this.#isOp("]") || this.#isOp(",") ? null : this.expression();
    return { type: "Slice", lower, upper, step };
  }

  #atom(): Expr {
    const token = this.#token;
    switch (token.kind) {
      case "name": {
        this.#at++;
        if (token.text === "True") return { type: "Constant", value: true };
        if (token.text === "False") return { type: "Constant", value: false };
        if (token.text === "None") return { type: "Constant", value: null };
        if (KEYWORDS.has(token.text)) {
          this.#at--;
          throw this.#error("invalid syntax");
        }
        return { type: "Name", id: token.text };
      }
      case "int":
      case "float":
        this.#at++;
        return { type: "Constant", value: token.value };
      case "imaginary":
        this.#at++;
        return { type: "Unsupported", what: "complex number", source: token.text };
      case "string":
        return this.#strings();
      case "op":
        break;
      default:
        throw this.#error("invalid syntax");
    }
    if (this.#eatOp("...")) return { type: "Constant", value: ELLIPSIS };
    if (this.#isOp("(")) return this.#group();
    if (this.#isOp("[")) return this.#list();
    if (this.#isOp("{")) return this.#dictOrSet();
    throw this.#error("invalid syntax");
  }

  /** Adjacent literals concatenate; an f-string or bytes among them makes the whole unusable. */
  #strings(): Expr {
    const start = this.#token.start;
    let value = "";
    let bytes: boolean | undefined;
    let formatted = false;
    while (this.#token.kind === "string") {
      const token = this.#token as Extract<Token, { kind: "string" }>;
      const isBytes = token.prefix.includes("b");
      if (bytes !== undefined && bytes !== isBytes) throw this.#error("cannot mix bytes and nonbytes literals");
      bytes = isBytes;
      if (token.prefix.includes("f")) formatted = true;
      value += token.value;
      this.#at++;
    }
    if (formatted) return { type: "Unsupported", what: "f-string", source: this.source.slice(start, this.#token.start) };
    if (bytes) return { type: "Unsupported", what: "bytes", source: this.source.slice(start, this.#token.start) };
    return { type: "Constant", value };
  }

  #group(): Expr {
    const start = this.#token.start;
    this.#at++;
    if (this.#eatOp(")")) return { type: "Tuple", elts: [], parenthesised: true };
    const first = this.#starExpression();
    if (this.#isName("for") || this.#isName("async")) return this.#comprehension("generator expression", start, ")");
    if (this.#eatOp(")")) {
      if (first.type === "Starred") throw this.#error("cannot use starred expression here");
      return first;
    }
    const elts = [first];
    while (this.#eatOp(",")) {
      if (this.#isOp(")")) break;
      elts.push(this.#starExpression());
    }
    this.#expectOp(")");
    return { type: "Tuple", elts, parenthesised: true };
  }

  #list(): Expr {
    const start = this.#token.start;
    this.#at++;
    const elts: Expr[] = [];
    while (!this.#isOp("]")) {
      elts.push(this.#starExpression());
      if (elts.length === 1 && (this.#isName("for") || this.#isName("async"))) return this.#comprehension("list comprehension", start, "]");
      if (!this.#eatOp(",")) break;
    }
    this.#expectOp("]");
    return { type: "List", elts };
  }

  #dictOrSet(): Expr {
    const start = this.#token.start;
    this.#at++;
    if (this.#eatOp("}")) return { type: "Dict", keys: [], values: [] };
    const keys: (Expr | null)[] = [];
    const values: Expr[] = [];
    const elts: Expr[] = [];
    let isDict: boolean | undefined;
    while (!this.#isOp("}")) {
      if (isDict !== false && this.#eatOp("**")) {
        isDict = true;
        keys.push(null);
        values.push(this.#bitOr());
      } else {
        const item = this.#starExpression();
        if (isDict === undefined) isDict = this.#isOp(":");
        if (isDict) {
          this.#expectOp(":");
          keys.push(item);
          values.push(this.expression());
        } else {
          elts.push(item);
        }
        if (keys.length + elts.length === 1 && (this.#isName("for") || this.#isName("async"))) {
          return this.#comprehension(isDict ? "dict comprehension" : "set comprehension", start, "}");
        }
      }
      if (!this.#eatOp(",")) break;
    }
    this.#expectOp("}");
    return isDict ? { type: "Dict", keys, values } : { type: "Set", elts };
  }
}
