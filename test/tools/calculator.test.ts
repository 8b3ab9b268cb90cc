import { describe, expect, it } from "vitest";
import { calculatorTool, evaluateExpression, ExpressionError, parseExpression } from "../../src/tools/builtin/index.js";
import { fakeContext } from "./fake-context.js";

function calculate(expression: string): unknown {
  const tool = calculatorTool();
  return tool.run(tool.input.parse({ expression }), fakeContext());
}

function errorOf(expression: string): ExpressionError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to fail`);
}

describe("calculator tool", () => {
  it("is a safe, read-only, idempotent tool with a derived JSON Schema", () => {
    const tool = calculatorTool();
    expect(tool).toMatchObject({ name: "calculator", risk: "safe", readOnly: true, idempotent: true, requiresApproval: false });
    expect(tool.parameters).toMatchObject({ type: "object", properties: { expression: { type: "string" } }, required: ["expression"] });
  });

  it("returns the expression and its value", async () => {
    expect(await calculate("(2 + 3) * 4")).toEqual({ expression: "(2 + 3) * 4", result: 20 });
  });

  it("throws ExpressionError for a bad expression, for the agent to record as tool.failed", () => {
    expect(() => calculate("2 +")).toThrow(ExpressionError);
  });
});

describe("numbers", () => {
  it.each([
    ["42", 42],
    ["3.25", 3.25],
    [".5", 0.5],
    ["2.", 2],
    ["1e3", 1000],
    ["1.5E-3", 0.0015],
    ["2e+2", 200],
    ["  7  ", 7],
  ])("reads %s as %d", (text, value) => {
    expect(evaluateExpression(text)).toBe(value);
  });
});

describe("precedence and associativity", () => {
  it.each([
    ["2 + 3 * 4", 14],
    ["(2 + 3) * 4", 20],
    ["10 - 4 - 3", 3],
    ["100 / 10 / 5", 2],
    ["7 % 4 * 2", 6],
    ["2 ^ 3 ^ 2", 512],
    ["2 ** 3 ** 2", 512],
    ["(2 ^ 3) ^ 2", 64],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["-3 * -2", 6],
    ["3 - -2", 5],
    ["+4 - +1", 3],
    ["--5", 5],
    ["2 * 3 ^ 2", 18],
    ["1 + 2 * 3 - 4 / 2", 5],
    ["-7 % 3", -1],
  ])("%s = %d", (text, value) => {
    expect(evaluateExpression(text)).toBe(value);
  });

  it("builds a tree that shows the grouping", () => {
    expect(parseExpression("1 - 2 - 3")).toMatchObject({
      kind: "binary",
      operator: "-",
      left: { kind: "binary", operator: "-", left: { value: 1 }, right: { value: 2 } },
      right: { value: 3 },
    });
  });

  it("evaluates long flat chains, which nest only in the tree, not in the text", () => {
    expect(evaluateExpression("1+".repeat(2000) + "1")).toBe(2001);
  });
});

describe("functions and constants", () => {
  it.each([
    ["sqrt(16)", 4],
    ["abs(-3.5)", 3.5],
    ["round(2.5)", 3],
    ["floor(-1.5)", -2],
    ["ceil(1.2)", 2],
    ["min(4, 2, 8)", 2],
    ["max(4, 2, 8)", 8],
    ["pow(2, 10)", 1024],
    ["log(1000)", 3],
    ["log(8, 2)", 3],
    ["ln(e)", 1],
    ["exp(0)", 1],
    ["sin(0)", 0],
    ["cos(0)", 1],
    ["tan(0)", 0],
    ["cos(pi)", -1],
    ["PI", Math.PI],
    ["2 * sqrt(9) + max(1, min(5, 3))", 9],
  ])("%s = %d", (text, value) => {
    expect(evaluateExpression(text)).toBeCloseTo(value, 12);
  });
});

describe("errors name the position and what was expected", () => {
  it.each([
    ["(1 +)", 'unexpected ")" at position 5, expected a number, a name or "("'],
    ["2 +", 'unexpected end of expression at position 4, expected a number, a name or "("'],
    ["", 'unexpected end of expression at position 1, expected a number, a name or "("'],
    ["(1 + 2", 'unexpected end of expression at position 7, expected ")" to close "(" at position 1'],
    ["1 2", 'unexpected "2" at position 3, expected an operator or the end of the expression'],
    ["2 ** * 3", 'unexpected "*" at position 6, expected a number, a name or "("'],
    ["3 $ 4", 'unexpected character "$" at position 3'],
    ["1.2.3", 'malformed number "1.2.3" at position 1'],
    ["2x", 'malformed number "2x" at position 1'],
    ["foo(1)", 'unknown name "foo" at position 1; known names are abs, ceil, cos, e, exp, floor, ln, log, max, min, pi, pow, round, sin, sqrt, tan'],
    ["sqrt 4", 'unexpected "4" at position 6, expected "(" after function sqrt'],
    ["max(1 2)", 'unexpected "2" at position 7, expected "," or ")" to close max('],
    ["sqrt(1, 2)", "sqrt at position 1 takes 1 argument, got 2"],
    ["pow(2)", "pow at position 1 takes 2 arguments, got 1"],
    ["pi(2)", "pi at position 1 is a constant, not a function"],
    ["1 / (2 - 2)", "division by zero at position 3"],
    ["5 % 0", "modulo by zero at position 3"],
    ["sqrt(-1)", "sqrt(...) at position 1 has no real value"],
    ["1 + 10 ^ 400", '"^" at position 8 has no finite value'],
    ["ln(0)", "ln(...) at position 1 has no finite value"],
    ["1e400", "number 1e400 is too large at position 1"],
  ])("%j fails with: %s", (text, message) => {
    const error = errorOf(text);
    expect(error.message).toBe(message);
    expect(error.code).toBe("expression_invalid");
  });

  it("exposes the 1-based position as a field", () => {
    expect(errorOf("1 + * 2").position).toBe(5);
  });

  it("refuses absurd nesting with an ExpressionError, not a stack overflow", () => {
    expect(errorOf("(".repeat(5000) + "1" + ")".repeat(5000)).message).toMatch(/nests deeper than 200 levels/);
    expect(errorOf("-".repeat(5000) + "1").message).toMatch(/nests deeper than 200 levels/);
  });

  it("never evaluates text as JavaScript", () => {
    expect(errorOf("process.exit(1)").message).toBe('unexpected character "." at position 8');
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(errorOf(`${name}(1)`).message).toMatch(new RegExp(`^unknown name "${name}"`));
    }
  });
});
