/**
 * BFCL evaluates a binary operation with `eval(ast.unparse(node))`. This evaluates the same
 * expressions on literals with Python's arithmetic: int/int true division gives a float,
 * `//` and `%` floor toward negative infinity, `**` with a negative int exponent gives a float,
 * bools act as ints, strings, lists and tuples concatenate and repeat. A name, a call or a
 * comparison inside the operation fails here (in Python a builtin such as `len` would run):
 * that is the one place this decoder is narrower than the official one.
 */
import { QuietError } from "./quiet-error.js";
import { ELLIPSIS, type BinaryOperator, type Expr } from "./ast.js";
import { PyDict, PyTuple, pyTypeName, type PyValue } from "./value.js";

export class PyEvalError extends QuietError {}

export function evaluate(node: Expr): PyValue {
  switch (node.type) {
    case "Constant":
      if (node.value === ELLIPSIS) throw new PyEvalError("Ellipsis in an arithmetic expression");
      return node.value;
    case "UnaryOp":
      return unary(node.op, evaluate(node.operand));
    case "BinOp":
      return binary(node.op, evaluate(node.left), evaluate(node.right));
    case "List":
      return node.elts.map(evaluate);
    case "Tuple":
      return new PyTuple(node.elts.map(evaluate));
    case "Dict": {
      const dict = new PyDict();
      node.keys.forEach((key, i) => {
        if (key === null) throw new PyEvalError("dict unpacking in an arithmetic expression");
        dict.set(evaluate(key), evaluate(node.values[i] as Expr));
      });
      return dict;
    }
    default:
      throw new PyEvalError(`cannot evaluate ${node.type} in an arithmetic expression`);
  }
}

type Numeric = bigint | number;

function asNumber(value: PyValue): Numeric | undefined {
  if (typeof value === "boolean") return value ? 1n : 0n;
  if (typeof value === "bigint" || typeof value === "number") return value;
  return undefined;
}

function unary(op: string, value: PyValue): PyValue {
  if (op === "not") return !truthy(value);
  const number = asNumber(value);
  if (number === undefined) throw new PyEvalError(`bad operand type for unary ${op}: '${pyTypeName(value)}'`);
  if (op === "-") return -number;
  if (op === "+") return number;
  if (typeof number === "number") throw new PyEvalError("bad operand type for unary ~: 'float'");
  return ~number;
}

function truthy(value: PyValue): boolean {
  if (value === null) return false;
  if (typeof value === "string") return value.length > 0;
  if (typeof value === "bigint") return value !== 0n;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof PyTuple) return value.items.length > 0;
  return value.size > 0;
}

const toFloat = (value: Numeric): number => {
  const result = Number(value);
  if (!Number.isFinite(result) && typeof value === "bigint") throw new PyEvalError("int too large to convert to float");
  return result;
};

function binary(op: BinaryOperator, left: PyValue, right: PyValue): PyValue {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) {
    if (typeof left === "boolean" && typeof right === "boolean" && (op === "&" || op === "|" || op === "^")) {
      return op === "&" ? left && right : op === "|" ? left || right : left !== right;
    }
    return arithmetic(op, a, b);
  }
  return sequence(op, left, right);
}

function arithmetic(op: BinaryOperator, a: Numeric, b: Numeric): Numeric {
  if (typeof a === "bigint" && typeof b === "bigint") return integer(op, a, b);
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw new PyEvalError("float division by zero");
      return x / y;
    case "//":
      if (y === 0) throw new PyEvalError("float floor division by zero");
      return Math.floor(x / y);
    case "%": {
      if (y === 0) throw new PyEvalError("float modulo");
      const r = x % y;
      return r !== 0 && r < 0 !== y < 0 ? r + y : r;
    }
    case "**": {
      if (x < 0 && !Number.isInteger(y)) throw new PyEvalError("a negative number to a fractional power is complex");
      if (x === 0 && y < 0) throw new PyEvalError("0.0 cannot be raised to a negative power");
      return x ** y;
    }
    default:
      throw new PyEvalError(`unsupported operand type(s) for ${op}: 'float'`);
  }
}

function integer(op: BinaryOperator, a: bigint, b: bigint): Numeric {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      if (b === 0n) throw new PyEvalError("division by zero");
      return toFloat(a) / toFloat(b);
    case "//": {
      if (b === 0n) throw new PyEvalError("integer division or modulo by zero");
      const q = a / b;
      return (a % b !== 0n && a < 0n !== b < 0n) ? q - 1n : q;
    }
    case "%": {
      if (b === 0n) throw new PyEvalError("integer division or modulo by zero");
      const r = a % b;
      return r !== 0n && r < 0n !== b < 0n ? r + b : r;
    }
    case "**":
      if (b < 0n) {
        if (a === 0n) throw new PyEvalError("0.0 cannot be raised to a negative power");
        return toFloat(a) ** toFloat(b);
      }
      // A bound Python does not have, so that `9**9**9` cannot stall a run.
      if (b > 100_000n) throw new PyEvalError("exponent too large for this decoder");
      return a ** b;
    case "<<":
      if (b < 0n) throw new PyEvalError("negative shift count");
      if (b > 100_000n) throw new PyEvalError("shift too large for this decoder");
      return a << b;
    case ">>":
      if (b < 0n) throw new PyEvalError("negative shift count");
      return a >> b;
    case "&":
      return a & b;
    case "|":
      return a | b;
    case "^":
      return a ^ b;
    default:
      throw new PyEvalError(`unsupported operand type(s) for ${op}: 'int' and 'int'`);
  }
}

function sequence(op: BinaryOperator, left: PyValue, right: PyValue): PyValue {
  if (op === "+") {
    if (typeof left === "string" && typeof right === "string") return left + right;
    if (Array.isArray(left) && Array.isArray(right)) return [...left, ...right];
    if (left instanceof PyTuple && right instanceof PyTuple) return new PyTuple([...left.items, ...right.items]);
  }
  if (op === "*") {
    const [items, count] = typeof left === "bigint" || typeof left === "boolean" ? [right, asNumber(left)] : [left, asNumber(right)];
    if (typeof count === "bigint") {
      const times = count > 0n ? Number(count) : 0;
      if (times * length(items) > 10_000_000) throw new PyEvalError("repetition too large for this decoder");
      if (typeof items === "string") return items.repeat(times);
      if (Array.isArray(items)) return Array.from({ length: times }, () => items).flat(1);
      if (items instanceof PyTuple) return new PyTuple(Array.from({ length: times }, () => items.items).flat(1));
    }
  }
  throw new PyEvalError(`unsupported operand type(s) for ${op}: '${pyTypeName(left)}' and '${pyTypeName(right)}'`);
}

function length(value: PyValue): number {
  if (typeof value === "string" || Array.isArray(value)) return value.length;
  return value instanceof PyTuple ? value.items.length : 0;
}
