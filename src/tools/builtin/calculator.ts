import { z } from "zod";
import { defineTool, type Tool } from "../define.js";
import { evaluateExpression, expressionNames } from "./expression.js";

export const CalculatorInput = z.object({
  expression: z.string().max(4096).describe("An arithmetic expression, e.g. `(2 + 3) * sqrt(16) / 2^3`."),
});
export type CalculatorArgs = z.infer<typeof CalculatorInput>;
export interface CalculatorResult {
  expression: string;
  result: number;
}

export function calculatorTool(): Tool<CalculatorArgs, CalculatorResult> {
  return defineTool({
    name: "calculator",
    description:
      "Evaluates an arithmetic expression exactly as written and returns the number. Supports + - * / % and ^ (or **, " +
      "right-associative, binding tighter than unary minus: -2^2 = -4), parentheses, decimals and exponent notation (1.5e3), " +
      `and these functions and constants: ${expressionNames.join(", ")} (log is base 10, ln is natural, angles in radians).`,
    input: CalculatorInput,
    idempotent: true,
    readOnly: true,
    risk: "safe",
    run: ({ expression }) => ({ expression, result: evaluateExpression(expression) }),
  });
}
