/**
 * The part of Python's expression AST (`ast.parse(..., mode="eval")`) that BFCL's decoder
 * looks at, with the node names Python uses so the decoder reads like the official one.
 */
import type { PyValue } from "./value.js";

export type UnaryOperator = "-" | "+" | "~" | "not";
export type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "@" | "<<" | ">>" | "&" | "|" | "^";
export type CompareOperator = "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not in" | "is" | "is not";

/** `...` is its own constant in Python; the decoder turns it into the string "...". */
export const ELLIPSIS = Symbol("Ellipsis");

export interface Keyword {
  /** null for `**mapping`. */
  arg: string | null;
  value: Expr;
}

export type Expr =
  | { type: "Constant"; value: PyValue | typeof ELLIPSIS }
  | { type: "Name"; id: string }
  | { type: "Attribute"; value: Expr; attr: string }
  | { type: "Call"; func: Expr; args: Expr[]; keywords: Keyword[] }
  | { type: "List"; elts: Expr[] }
  | { type: "Tuple"; elts: Expr[]; parenthesised: boolean }
  | { type: "Set"; elts: Expr[] }
  | { type: "Dict"; keys: (Expr | null)[]; values: Expr[] }
  | { type: "UnaryOp"; op: UnaryOperator; operand: Expr }
  | { type: "BinOp"; op: BinaryOperator; left: Expr; right: Expr }
  | { type: "BoolOp"; op: "and" | "or"; values: Expr[] }
  | { type: "Compare"; left: Expr; ops: CompareOperator[]; comparators: Expr[] }
  | { type: "IfExp"; test: Expr; body: Expr; orelse: Expr }
  | { type: "Subscript"; value: Expr; slice: Expr }
  | { type: "Slice"; lower: Expr | null; upper: Expr | null; step: Expr | null }
  | { type: "Starred"; value: Expr }
  /** Valid Python the decoder can only fail on (f-strings, bytes, lambdas, complex numbers, ...). */
  | { type: "Unsupported"; what: string; source: string };

export type ExprOf<T extends Expr["type"]> = Extract<Expr, { type: T }>;
