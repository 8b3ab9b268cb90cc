/**
 * `ast.unparse` (CPython 3.11) for the nodes the parser builds. BFCL keeps a call without
 * keywords, and a subscript, as their unparsed text (`foo(1,2)` becomes "foo(1, 2)"), so the
 * spacing, quoting and parentheses must be Python's.
 */
import { ELLIPSIS, type Expr } from "./ast.js";
import { pyRepr } from "./value.js";

// Python's _Precedence, lowest first.
const enum P {
  Tuple = 1,
  Test = 3,
  Or = 4,
  And = 5,
  Not = 6,
  Cmp = 7,
  BOr = 9,
  BXor = 10,
  BAnd = 11,
  Shift = 12,
  Arith = 13,
  Term = 14,
  Factor = 15,
  Power = 16,
  Atom = 18,
}

const BINARY: Record<string, P> = {
  "|": P.BOr, "^": P.BXor, "&": P.BAnd, "<<": P.Shift, ">>": P.Shift, "+": P.Arith, "-": P.Arith,
  "*": P.Term, "/": P.Term, "//": P.Term, "%": P.Term, "@": P.Term, "**": P.Power,
};

export function unparse(node: Expr): string {
  return write(node, P.Test);
}

function wrap(text: string, own: P, needed: P): string {
  return own < needed ? `(${text})` : text;
}

function write(node: Expr, needed: P): string {
  switch (node.type) {
    case "Constant":
      return node.value === ELLIPSIS ? "..." : pyRepr(node.value);
    case "Name":
      return node.id;
    case "Attribute": {
      const value = write(node.value, P.Atom);
      // `1 .real`: an int literal needs a space before the dot.
      const spaced = node.value.type === "Constant" && typeof node.value.value === "bigint" ? `${value} ` : value;
      return `${spaced}.${node.attr}`;
    }
    case "Call": {
      const parts = [
        ...node.args.map((arg) => write(arg, P.Test)),
        ...node.keywords.map((keyword) => (keyword.arg === null ? `**${write(keyword.value, P.Test)}` : `${keyword.arg}=${write(keyword.value, P.Test)}`)),
      ];
      return `${write(node.func, P.Atom)}(${parts.join(", ")})`;
    }
    case "List":
      return `[${node.elts.map((elt) => write(elt, P.Test)).join(", ")}]`;
    case "Tuple": {
      const items = node.elts.map((elt) => write(elt, P.Test));
      const body = items.length === 1 ? `${items[0]},` : items.join(", ");
      return node.elts.length === 0 ? "()" : wrap(body, P.Tuple, needed);
    }
    case "Set":
      return `{${node.elts.map((elt) => write(elt, P.Test)).join(", ")}}`;
    case "Dict":
      return `{${node.keys
        .map((key, i) => (key === null ? `**${write(node.values[i] as Expr, P.BOr)}` : `${write(key, P.Test)}: ${write(node.values[i] as Expr, P.Test)}`))
        .join(", ")}}`;
    case "UnaryOp": {
      const own = node.op === "not" ? P.Not : P.Factor;
      const operator = node.op === "not" ? "not " : node.op;
      return wrap(`${operator}${write(node.operand, own)}`, own, needed);
    }
    case "BinOp": {
      const own = BINARY[node.op] as P;
      const rightAssociative = node.op === "**";
      const left = write(node.left, rightAssociative ? own + 1 : own);
      const right = write(node.right, rightAssociative ? own : own + 1);
      return wrap(`${left} ${node.op} ${right}`, own, needed);
    }
    case "BoolOp": {
      const own = node.op === "and" ? P.And : P.Or;
      return wrap(node.values.map((value) => write(value, own + 1)).join(` ${node.op} `), own, needed);
    }
    case "Compare": {
      const parts = [write(node.left, P.Cmp + 1)];
      node.ops.forEach((op, i) => parts.push(op, write(node.comparators[i] as Expr, P.Cmp + 1)));
      return wrap(parts.join(" "), P.Cmp, needed);
    }
    case "IfExp":
      return wrap(`${write(node.body, P.Test + 1)} if ${write(node.test, P.Test + 1)} else ${write(node.orelse, P.Test)}`, P.Test, needed);
    case "Subscript": {
      const slice = node.slice.type === "Tuple" && node.slice.elts.length > 0 ? node.slice.elts.map((elt) => write(elt, P.Test)).join(", ") + (node.slice.elts.length === 1 ? "," : "") : write(node.slice, P.Tuple);
      return `${write(node.value, P.Atom)}[${slice}]`;
    }
    case "Slice": {
      let text = `${node.lower ? write(node.lower, P.Test) : ""}:${node.upper ? write(node.upper, P.Test) : ""}`;
      if (node.step) text += `:${write(node.step, P.Test)}`;
      return text;
    }
    case "Starred":
      return `*${write(node.value, P.BOr)}`;
    case "Unsupported":
      return node.source;
  }
}
