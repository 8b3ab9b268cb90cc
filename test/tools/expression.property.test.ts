import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateExpression, ExpressionError } from "../../src/tools/builtin/index.js";

type Operator = "+" | "-" | "*" | "/" | "%" | "^";
type Tree =
  | { kind: "literal"; value: number; paren: boolean }
  | { kind: "negate"; operand: Tree; paren: boolean }
  | { kind: "binary"; operator: Operator; left: Tree; right: Tree; paren: boolean; starStar: boolean };

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("literal" as const), value: fc.integer({ min: 0, max: 20 }), paren: fc.boolean() }),
    fc.record({ kind: fc.constant("negate" as const), operand: tie("tree"), paren: fc.boolean() }),
    fc.record({
      kind: fc.constant("binary" as const),
      operator: fc.constantFrom<Operator>("+", "-", "*", "/", "%", "^"),
      left: tie("tree"),
      right: tie("tree"),
      paren: fc.boolean(),
      starStar: fc.boolean(),
    }),
  ),
}));

/** How tightly each node binds, per the grammar: sum < product < unary < power < literal. */
function precedence(node: Tree): number {
  if (node.kind === "literal") return 5;
  if (node.kind === "negate") return 3;
  return { "+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "^": 4 }[node.operator];
}

/** Prints the tree with the parentheses its shape requires, plus the redundant ones it asks for. */
function print(node: Tree): string {
  return node.paren ? `(${bare(node)})` : bare(node);
}

function bare(node: Tree): string {
  const wrap = (child: Tree, needed: boolean): string => (needed && !child.paren ? `(${bare(child)})` : print(child));
  switch (node.kind) {
    case "literal":
      return String(node.value);
    case "negate":
      return `-${wrap(node.operand, precedence(node.operand) < 3)}`;
    case "binary": {
      const own = precedence(node);
      if (node.operator === "^") {
        // The base is a primary; the exponent is a unary, which makes ^ right-associative.
        return `${wrap(node.left, precedence(node.left) < 5)} ${node.starStar ? "**" : "^"} ${wrap(node.right, precedence(node.right) < 3)}`;
      }
      return `${wrap(node.left, precedence(node.left) < own)} ${node.operator} ${wrap(node.right, precedence(node.right) <= own)}`;
    }
  }
}

/** The reference semantics, straight from the tree: undefined where the calculator must refuse. */
function direct(node: Tree): number | undefined {
  const value = compute(node);
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return value === 0 ? 0 : value;
}

function compute(node: Tree): number | undefined {
  if (node.kind === "literal") return node.value;
  if (node.kind === "negate") {
    const operand = direct(node.operand);
    return operand === undefined ? undefined : -operand;
  }
  const left = direct(node.left);
  const right = direct(node.right);
  if (left === undefined || right === undefined) return undefined;
  switch (node.operator) {
    case "+":
      return left + right;
    case "-":
      return left - right;
    case "*":
      return left * right;
    case "/":
      return right === 0 ? undefined : left / right;
    case "%":
      return right === 0 ? undefined : left % right;
    case "^":
      return left ** right;
  }
}

function outcome(text: string): { value: number } | { error: string } {
  try {
    return { value: evaluateExpression(text) };
  } catch (error) {
    if (error instanceof ExpressionError) return { error: error.code };
    throw error;
  }
}

describe("expression properties", () => {
  it("parsing and evaluating a printed tree gives the tree's own value, or an ExpressionError where it has none", () => {
    fc.assert(
      fc.property(tree, (node) => {
        const expected = direct(node);
        const actual = outcome(print(node));
        expect(actual).toEqual(expected === undefined ? { error: "expression_invalid" } : { value: expected });
      }),
      { numRuns: 2000 },
    );
  });

  it("throws nothing but ExpressionError on arbitrary text, and otherwise returns a finite number", () => {
    const grammarish = fc.string({
      unit: fc.constantFrom(..."0123456789.eE+-*/%^(), ".split(""), "sqrt", "max", "pi", "log", "**", "1e308", "constructor"),
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.oneof(grammarish, fc.string({ unit: "binary", maxLength: 40 })), (text) => {
        const result = outcome(text);
        if ("value" in result) expect(Number.isFinite(result.value)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("ignores whitespace between tokens", () => {
    fc.assert(
      fc.property(tree, fc.constantFrom(" ", "\t", "\n", "  "), (node, space) => {
        const text = print(node);
        expect(outcome(text.replace(/ /g, ""))).toEqual(outcome(text.replace(/ /g, space)));
      }),
      { numRuns: 500 },
    );
  });
});
