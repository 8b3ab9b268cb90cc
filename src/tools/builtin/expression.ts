/**
 * Arithmetic expressions for the calculator tool: a tokenizer, a recursive-descent parser and an
 * evaluator. Pure, and never `eval`: the text comes from a model and must not run as code.
 *
 * Grammar, loosest binding first (`-2^2` is -4 and `2^3^2` is 512, as in Python and maths):
 *   sum     := product (("+" | "-") product)*
 *   product := unary (("*" | "/" | "%") unary)*
 *   unary   := ("+" | "-") unary | power
 *   power   := primary (("^" | "**") unary)?
 *   primary := number | constant | name "(" sum ("," sum)* ")" | "(" sum ")"
 */
import { ExpressionError } from "../../errors/index.js";

export type BinaryOperator = "+" | "-" | "*" | "/" | "%" | "^";

/** `position` is 1-based, the column an error message names. */
export type ExpressionNode =
  | { kind: "number"; value: number; position: number }
  | { kind: "unary"; operator: "+" | "-"; operand: ExpressionNode; position: number }
  | { kind: "binary"; operator: BinaryOperator; left: ExpressionNode; right: ExpressionNode; position: number }
  | { kind: "call"; name: string; args: ExpressionNode[]; position: number };

interface FunctionSpec {
  minArgs: number;
  maxArgs: number;
  apply(args: number[]): number;
}

const unary = (f: (x: number) => number): FunctionSpec => ({ minArgs: 1, maxArgs: 1, apply: (args) => f(args[0]!) });

// Maps, not object literals: a name like "constructor" must not find Object.prototype members.
const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map(Object.entries({
  sqrt: unary(Math.sqrt),
  abs: unary(Math.abs),
  round: unary(Math.round),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  exp: unary(Math.exp),
  ln: unary(Math.log),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  min: { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.min(...args) },
  max: { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.max(...args) },
  pow: { minArgs: 2, maxArgs: 2, apply: ([x, y]) => x! ** y! },
  // log is base 10 as on a calculator keypad; ln is the natural log; log(x, b) picks the base.
  log: { minArgs: 1, maxArgs: 2, apply: ([x, base]) => (base === undefined ? Math.log10(x!) : Math.log(x!) / Math.log(base)) },
}));

const CONSTANTS: ReadonlyMap<string, number> = new Map([["pi", Math.PI], ["e", Math.E]]);

export const expressionNames: readonly string[] = [...FUNCTIONS.keys(), ...CONSTANTS.keys()].sort();

// Deep nesting would overflow the JavaScript stack with a RangeError instead of a clear error.
const MAX_DEPTH = 200;

type Token =
  | { kind: "number"; text: string; value: number; position: number }
  | { kind: "name"; text: string; position: number }
  | { kind: "symbol"; text: "+" | "-" | "*" | "/" | "%" | "^" | "**" | "(" | ")" | ","; position: number }
  | { kind: "end"; text: ""; position: number };

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER_TAIL = /[A-Za-z0-9_.]+/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const position = index + 1;
    if (/\s/.test(char)) {
      index += 1;
      continue;
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(text);
    if (number) {
      index = NUMBER.lastIndex;
      // "1.2.3", "2x" and "1e" are typos, not a number followed by something else.
      NUMBER_TAIL.lastIndex = index;
      const tail = NUMBER_TAIL.exec(text);
      if (tail) throw new ExpressionError(`malformed number ${JSON.stringify(number[0] + tail[0])}`, position);
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw new ExpressionError(`number ${number[0]} is too large`, position);
      tokens.push({ kind: "number", text: number[0], value, position });
      continue;
    }
    NAME.lastIndex = index;
    const name = NAME.exec(text);
    if (name) {
      index = NAME.lastIndex;
      tokens.push({ kind: "name", text: name[0], position });
      continue;
    }
    if (text.startsWith("**", index)) {
      tokens.push({ kind: "symbol", text: "**", position });
      index += 2;
      continue;
    }
    if ("+-*/%^(),".includes(char)) {
      tokens.push({ kind: "symbol", text: char as "+", position });
      index += 1;
      continue;
    }
    const codePoint = String.fromCodePoint(text.codePointAt(index)!);
    throw new ExpressionError(`unexpected character ${JSON.stringify(codePoint)}`, position);
  }
  tokens.push({ kind: "end", text: "", position: text.length + 1 });
  return tokens;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): ExpressionNode {
    const node = this.sum();
    if (this.peek().kind !== "end") this.unexpected("an operator or the end of the expression");
    return node;
  }

  private sum(): ExpressionNode {
    let left = this.product();
    for (let token = this.peek(); this.isSymbol(token, "+", "-"); token = this.peek()) {
      this.index += 1;
      left = { kind: "binary", operator: token.text as BinaryOperator, left, right: this.product(), position: token.position };
    }
    return left;
  }

  private product(): ExpressionNode {
    let left = this.unary();
    for (let token = this.peek(); this.isSymbol(token, "*", "/", "%"); token = this.peek()) {
      this.index += 1;
      left = { kind: "binary", operator: token.text as BinaryOperator, left, right: this.unary(), position: token.position };
    }
    return left;
  }

  private unary(): ExpressionNode {
    const token = this.peek();
    if (++this.depth > MAX_DEPTH) throw new ExpressionError(`expression nests deeper than ${MAX_DEPTH} levels`, token.position);
    let node: ExpressionNode;
    if (this.isSymbol(token, "+", "-")) {
      this.index += 1;
      node = { kind: "unary", operator: token.text as "+" | "-", operand: this.unary(), position: token.position };
    } else {
      node = this.power();
    }
    this.depth -= 1;
    return node;
  }

  private power(): ExpressionNode {
    const base = this.primary();
    const token = this.peek();
    if (!this.isSymbol(token, "^", "**")) return base;
    this.index += 1;
    // The exponent is a unary, so `2^-1` works and `2^3^2` groups to the right.
    return { kind: "binary", operator: "^", left: base, right: this.unary(), position: token.position };
  }

  private primary(): ExpressionNode {
    const token = this.peek();
    if (token.kind === "number") {
      this.index += 1;
      return { kind: "number", value: token.value, position: token.position };
    }
    if (token.kind === "name") {
      this.index += 1;
      return this.named(token.text, token.position);
    }
    if (this.isSymbol(token, "(")) {
      this.index += 1;
      const inner = this.sum();
      this.expect(")", `")" to close "(" at position ${token.position}`);
      return inner;
    }
    return this.unexpected('a number, a name or "("');
  }

  private named(text: string, position: number): ExpressionNode {
    const name = text.toLowerCase();
    const constant = CONSTANTS.get(name);
    const spec = FUNCTIONS.get(name);
    const opensCall = this.isSymbol(this.peek(), "(");
    if (constant !== undefined) {
      if (opensCall) throw new ExpressionError(name, position, " is a constant, not a function");
      return { kind: "number", value: constant, position };
    }
    if (spec === undefined) {
      throw new ExpressionError(`unknown name ${JSON.stringify(text)}`, position, `; known names are ${expressionNames.join(", ")}`);
    }
    this.expect("(", `"(" after function ${name}`);
    const args = [this.sum()];
    while (this.isSymbol(this.peek(), ",")) {
      this.index += 1;
      args.push(this.sum());
    }
    this.expect(")", `"," or ")" to close ${name}(`);
    if (args.length < spec.minArgs || args.length > spec.maxArgs) {
      const expected = spec.maxArgs === Infinity ? `at least ${spec.minArgs}` : spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : `${spec.minArgs} or ${spec.maxArgs}`;
      throw new ExpressionError(name, position, ` takes ${expected} argument${expected === "1" ? "" : "s"}, got ${args.length}`);
    }
    return { kind: "call", name, args, position };
  }

  private peek(): Token {
    // The end token is always last, so reading past it keeps returning it.
    return this.tokens[Math.min(this.index, this.tokens.length - 1)]!;
  }

  private isSymbol(token: Token, ...texts: string[]): boolean {
    return token.kind === "symbol" && texts.includes(token.text);
  }

  private expect(text: string, expected: string): void {
    if (!this.isSymbol(this.peek(), text)) this.unexpected(expected);
    this.index += 1;
  }

  private unexpected(expected: string): never {
    const token = this.peek();
    const found = token.kind === "end" ? "end of expression" : JSON.stringify(token.text);
    throw new ExpressionError(`unexpected ${found}`, token.position, `, expected ${expected}`);
  }
}

export function parseExpression(text: string): ExpressionNode {
  return new Parser(tokenize(text)).parse();
}

export function evaluate(node: ExpressionNode): number {
  const value = compute(node);
  if (Number.isNaN(value)) throw new ExpressionError(label(node), node.position, " has no real value");
  if (!Number.isFinite(value)) throw new ExpressionError(label(node), node.position, " has no finite value");
  // -0 prints as 0 in JSON anyway; normalising keeps `Object.is` comparisons of results honest.
  return value === 0 ? 0 : value;
}

function label(node: ExpressionNode): string {
  if (node.kind === "call") return `${node.name}(...)`;
  if (node.kind === "number") return "number";
  return JSON.stringify(node.operator);
}

function compute(node: ExpressionNode): number {
  switch (node.kind) {
    case "number":
      return node.value;
    case "unary":
      return node.operator === "-" ? -evaluate(node.operand) : evaluate(node.operand);
    case "call":
      return FUNCTIONS.get(node.name)!.apply(node.args.map(evaluate));
    case "binary": {
      const left = evaluate(node.left);
      const right = evaluate(node.right);
      switch (node.operator) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          if (right === 0) throw new ExpressionError("division by zero", node.position);
          return left / right;
        case "%":
          if (right === 0) throw new ExpressionError("modulo by zero", node.position);
          return left % right;
        case "^":
          return left ** right;
      }
    }
  }
}

/** Parses and evaluates `text`; throws `ExpressionError` for any problem, never anything else. */
export function evaluateExpression(text: string): number {
  return evaluate(parseExpression(text));
}
