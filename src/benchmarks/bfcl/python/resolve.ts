/**
 * BFCL's `resolve_ast_call` and `resolve_ast_by_type` (bfcl_eval/model_handler/utils.py):
 * how a parsed call becomes `{name: {param: value}}`. The official rules are kept as they are,
 * odd ones included:
 * - positional arguments are dropped without a word;
 * - a bare name is its own text (`unit=meters` gives "meters");
 * - a call without keywords is its unparsed source text, a call with keywords a nested
 *   `{name: args}` (whose positional arguments are dropped too);
 * - any unary operator negates its operand, which must be a literal: `+5` and `~5` give -5,
 *   `not 5` gives -5, `-True` gives -1, and `-x` fails (a name has no `.value`);
 * - an attribute (`Units.METRIC`), a set, a comparison, a lambda, an f-string fail;
 * - a subscript is its unparsed text; `...` is the string "...".
 */
import { QuietError } from "./quiet-error.js";
import { ELLIPSIS, type Expr, type ExprOf } from "./ast.js";
import { evaluate, PyEvalError } from "./evaluate.js";
import { unparse } from "./unparse.js";
import { PyDict, PyTuple, PyTypeError, pyTypeName, type PyValue } from "./value.js";

export class PyDecodeError extends QuietError {}

export function resolveCall(call: ExprOf<"Call">): PyDict {
  const parts: string[] = [];
  let func = call.func;
  while (func.type === "Attribute") {
    parts.push(func.attr);
    func = func.value;
  }
  if (func.type === "Name") parts.push(func.id);
  const args = new PyDict();
  for (const keyword of call.keywords) {
    // `**kwargs` has no name; Python would store it under the key None.
    args.set(keyword.arg, resolveValue(keyword.value));
  }
  const result = new PyDict();
  result.set(parts.reverse().join("."), args);
  return result;
}

export function resolveValue(node: Expr): PyValue {
  switch (node.type) {
    case "Constant":
      return node.value === ELLIPSIS ? "..." : node.value;
    case "UnaryOp": {
      if (node.operand.type !== "Constant") throw new PyDecodeError(`unary ${node.op} of a ${node.operand.type} (only a literal can be negated)`);
      return negate(node.operand.value);
    }
    case "List":
      return node.elts.map(resolveValue);
    case "Dict": {
      const dict = new PyDict();
      node.keys.forEach((key, i) => {
        if (key === null) throw new PyDecodeError("Unsupported AST type: <class 'NoneType'>");
        try {
          dict.set(resolveValue(key), resolveValue(node.values[i] as Expr));
        } catch (error) {
          if (error instanceof PyTypeError) throw new PyDecodeError(error.message);
          throw error;
        }
      });
      return dict;
    }
    case "BinOp":
      try {
        return evaluate(node);
      } catch (error) {
        if (error instanceof PyEvalError) throw new PyDecodeError(error.message);
        throw error;
      }
    case "Name":
      return node.id;
    case "Call":
      return node.keywords.length === 0 ? unparse(node) : resolveCall(node);
    case "Tuple":
      return new PyTuple(node.elts.map(resolveValue));
    case "Subscript":
      // The official code falls back to `unparse(value) + "[" + unparse(slice) + "]"`, where a
      // tuple index unparses with its parentheses: `x[1, 2]` gives "x[(1, 2)]".
      return `${unparse(node.value)}[${unparse(node.slice)}]`;
    default:
      throw new PyDecodeError(`Unsupported AST type: ${node.type === "Unsupported" ? node.what : node.type}`);
  }
}

function negate(value: PyValue | typeof ELLIPSIS): PyValue {
  if (typeof value === "bigint" || typeof value === "number") return -value;
  if (typeof value === "boolean") return value ? -1n : 0n;
  const type = value === ELLIPSIS ? "ellipsis" : pyTypeName(value);
  throw new PyDecodeError(`bad operand type for unary -: '${type}'`);
}
