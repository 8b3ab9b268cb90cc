/**
 * Regular expressions matched in time linear in the text (text length × pattern size), for the
 * patterns a config gives (guardrails). JavaScript's own engine backtracks: `(a+)+$` takes
 * exponential time and even `\s+$` or `a.*b` quadratic time to fail on a long answer, which
 * would hang a run. This is a Pike VM (Thompson's construction, threads in priority order), so
 * it finds the same leftmost-first matches a backtracking engine finds, without backtracking.
 *
 * Every single-character piece of a pattern (a literal, a class, `\d`, `.`, `\p{L}`) is decided
 * by the JavaScript engine itself on one code point, with the pattern's flags, so classes, case
 * folding and Unicode properties mean exactly what they mean in a RegExp. Lookarounds and
 * back-references have no linear-time form: `compileLinear` returns undefined for them.
 */

type Instruction =
  | { op: "char"; test: (codePoint: number) => boolean }
  | { op: "split"; first: number; second: number }
  | { op: "jump"; to: number }
  | { op: "assert"; kind: "start" | "end" | "word" | "notWord" }
  | { op: "match" };

type Node =
  | { kind: "char"; source: string }
  | { kind: "assert"; assert: "start" | "end" | "word" | "notWord" }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number; lazy: boolean };

class Unsupported extends Error {}

/** Instructions a pattern may compile to: `x{1000}{1000}` must not become a million. */
const MAX_PROGRAM = 20_000;

function parse(source: string): Node {
  let index = 0;
  const peek = () => source[index];

  const escapeLength = (at: number): number => {
    // Stryker disable next-line StringLiteral: equivalent, a valid pattern never ends in a lone backslash
    const next = source[at + 1] ?? "";
    if ((next === "u" || next === "p" || next === "P") && source[at + 2] === "{") {
      const close = source.indexOf("}", at);
      return close - at + 1;
    }
    if (next === "u") {
      // A surrogate pair written as two escapes is one code point.
      const high = Number.parseInt(source.slice(at + 2, at + 6), 16);
      if (high >= 0xd800 && high <= 0xdbff && source.startsWith("\\u", at + 6)) return 12;
      return 6;
    }
    if (next === "x") return 4;
    if (next === "c") return 3;
    return 2;
  };

  const atom = (): Node => {
    const char = source.codePointAt(index) as number;
    const text = String.fromCodePoint(char);
    if (text === "(") {
      index++;
      if (source.startsWith("?:", index)) index += 2;
      else if (source.startsWith("?<", index) && source[index + 2] !== "=" && source[index + 2] !== "!") index = source.indexOf(">", index) + 1;
      else if (peek() === "?") throw new Unsupported("lookaround");
      const inner = alternation();
      index++; // ")"
      return inner;
    }
    if (text === "[") {
      const start = index;
      for (index++; source[index] !== "]"; index++) if (source[index] === "\\") index++;
      index++;
      return { kind: "char", source: source.slice(start, index) };
    }
    if (text === "\\") {
      const next = source[index + 1];
      if (next === "b" || next === "B") {
        index += 2;
        return { kind: "assert", assert: next === "b" ? "word" : "notWord" };
      }
      // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a valid pattern never ends in a lone backslash (and an Unsupported message is never shown)
      if (next !== undefined && (/[1-9]/.test(next) || next === "k")) throw new Unsupported("back-reference");
      const length = escapeLength(index);
      const escape = source.slice(index, index + length);
      index += length;
      return { kind: "char", source: escape };
    }
    if (text === "^" || text === "$") {
      index++;
      return { kind: "assert", assert: text === "^" ? "start" : "end" };
    }
    index += text.length;
    if (text === ".") return { kind: "char", source: "." };
    return { kind: "char", source: `\\u{${char.toString(16)}}` };
  };

  const quantified = (): Node => {
    let node = atom();
    for (;;) {
      const char = peek();
      let min: number;
      let max: number;
      if (char === "*") [min, max] = [0, Infinity];
      else if (char === "+") [min, max] = [1, Infinity];
      else if (char === "?") [min, max] = [0, 1];
      else if (char === "{") {
        const found = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
        if (!found) return node;
        min = Number(found[1]);
        max = found[2] === undefined ? min : found[3] === "" ? Infinity : Number(found[3]);
        index += found[0].length - 1;
      } else return node;
      index++;
      const lazy = peek() === "?";
      if (lazy) index++;
      node = { kind: "repeat", node, min, max, lazy };
    }
  };

  const sequence = (): Node => {
    // Stryker disable next-line ArrayDeclaration: equivalent, compile() ignores an item that is no node
    const items: Node[] = [];
    while (index < source.length && peek() !== "|" && peek() !== ")") items.push(quantified());
    return { kind: "seq", items };
  };

  function alternation(): Node {
    const options = [sequence()];
    while (peek() === "|") {
      index++;
      options.push(sequence());
    }
    // Stryker disable next-line ConditionalExpression: equivalent, an alternation of one option compiles to that option alone
    return options.length === 1 ? (options[0] as Node) : { kind: "alt", options };
  }

  const node = alternation();
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent for a valid pattern, which the parser always reads to its end (and an Unsupported message is never shown)
  if (index !== source.length) throw new Unsupported("unbalanced");
  return node;
}

function compile(root: Node, flags: string): Instruction[] {
  const program: Instruction[] = [];
  const testers = new Map<string, (codePoint: number) => boolean>();
  const tester = (source: string) => {
    let test = testers.get(source);
    // Stryker disable next-line ConditionalExpression: equivalent, a new tester answers the same; the cache only saves time
    if (!test) {
      const regex = new RegExp(`^(?:${source})$`, flags);
      const ascii = new Int8Array(128).fill(-1);
      const other = new Map<number, boolean>();
      test = (codePoint) => {
        // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, the map below answers the same as the ASCII table; which cache holds the answer only changes speed
        if (codePoint < 128) {
          let known = ascii[codePoint] as number;
          // Stryker disable next-line ConditionalExpression: equivalent, testing again gives the same answer; the table only saves time
          if (known === -1) ascii[codePoint] = known = regex.test(String.fromCharCode(codePoint)) ? 1 : 0;
          return known === 1;
        }
        let known = other.get(codePoint);
        // Stryker disable next-line ConditionalExpression: equivalent, testing again gives the same answer; the map only saves time
        if (known === undefined) {
          known = regex.test(String.fromCodePoint(codePoint));
          // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, the bound only limits memory; an answer not kept is computed again
          if (other.size < 4096) other.set(codePoint, known);
        }
        return known;
      };
      testers.set(source, test);
    }
    return test;
  };
  const emit = (instruction: Instruction): number => {
    // Stryker disable next-line StringLiteral: equivalent, an Unsupported message is never shown (compileLinear returns undefined)
    if (program.length >= MAX_PROGRAM) throw new Unsupported("too large");
    program.push(instruction);
    return program.length - 1;
  };
  const split = (first: number, second: number, lazy: boolean) => (lazy ? { op: "split" as const, first: second, second: first } : { op: "split" as const, first, second });

  const walk = (node: Node): void => {
    switch (node.kind) {
      case "char":
        emit({ op: "char", test: tester(node.source) });
        return;
      case "assert":
        emit({ op: "assert", kind: node.assert });
        return;
      case "seq":
        for (const item of node.items) walk(item);
        return;
      case "alt": {
        // Stryker disable next-line ArrayDeclaration: equivalent, a non-numeric entry only sets a property of the program array, never an instruction
        const jumps: number[] = [];
        node.options.forEach((option, position) => {
          if (position < node.options.length - 1) {
            // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, the placeholder is overwritten two lines below
            const at = emit({ op: "split", first: 0, second: 0 });
            walk(option);
            // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, the placeholder is overwritten once every option is compiled
            jumps.push(emit({ op: "jump", to: 0 }));
            program[at] = { op: "split", first: at + 1, second: program.length };
          } else walk(option);
        });
        for (const at of jumps) program[at] = { op: "jump", to: program.length };
        return;
      }
      case "repeat": {
        const { min, max, lazy } = node;
        for (let count = 0; count < min; count++) walk(node.node);
        if (max === Infinity) {
          // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, the placeholder is overwritten three lines below
          const at = emit({ op: "split", first: 0, second: 0 });
          walk(node.node);
          emit({ op: "jump", to: at });
          program[at] = split(at + 1, program.length, lazy);
          return;
        }
        // Stryker disable next-line ArrayDeclaration: equivalent, a non-numeric entry only sets a property of the program array, never an instruction
        const splits: number[] = [];
        for (let count = min; count < max; count++) {
          // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, the placeholder is overwritten once the copies are compiled
          splits.push(emit({ op: "split", first: 0, second: 0 }));
          walk(node.node);
        }
        for (const at of splits) program[at] = split(at + 1, program.length, lazy);
        return;
      }
    }
  };
  walk(root);
  emit({ op: "match" });
  return program;
}

export interface LinearRegex {
  readonly source: string;
  /** The leftmost-first match at or after `from`, as a RegExp would find it. */
  exec(text: string, from?: number): { index: number; end: number; text: string } | undefined;
  test(text: string): boolean;
  /** Every match replaced, left to right, as `text.replace(/…/g, …)` does; and how many there were. */
  replaceAll(text: string, replacement: string): { text: string; count: number };
}

/**
 * A linear-time matcher for `source` with `flags` (i, u, s, m are honoured as in a RegExp; g
 * and y are ignored), or undefined when the pattern needs what no linear-time engine can do.
 * `source` must already be a valid RegExp with these flags.
 */
export function compileLinear(source: string, flags: string): LinearRegex | undefined {
  const charFlags = flags.replace(/[gym]/g, "");
  const multiline = flags.includes("m");
  let program: Instruction[];
  try {
    program = compile(parse(source), charFlags);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  const wordTest = compile({ kind: "char", source: "\\w" }, charFlags)[0] as Extract<Instruction, { op: "char" }>;
  const size = program.length;

  const exec = (text: string, from = 0) => {
    const length = text.length;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,UnaryOperator: equivalent, past the end codePointAt gives undefined, which no test, word or line-break check accepts, like -1; and at is never negative
    const codePointAt = (at: number) => (at < 0 || at >= length ? -1 : (text.codePointAt(at) as number));
    const before = (at: number) => {
      // Stryker disable next-line ConditionalExpression,EqualityOperator,UnaryOperator: equivalent, before the start charCodeAt gives NaN (or 1 here), which is neither a word character nor a line break, like -1
      if (at <= 0) return -1;
      const unit = text.charCodeAt(at - 1);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, no astral character is a word character or a line break, and neither is a lone surrogate
      return unit >= 0xdc00 && unit <= 0xdfff && at >= 2 ? (text.codePointAt(at - 2) as number) : unit;
    };
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, -1 and 0 test as U+FFFF and NUL, neither of which is a word character
    const isWord = (codePoint: number) => codePoint >= 0 && wordTest.test(codePoint);
    const lineBreak = (codePoint: number) => codePoint === 10 || codePoint === 13 || codePoint === 0x2028 || codePoint === 0x2029;
    const holds = (kind: "start" | "end" | "word" | "notWord", at: number) => {
      if (kind === "start") return at === 0 || (multiline && lineBreak(before(at)));
      if (kind === "end") return at === length || (multiline && lineBreak(codePointAt(at)));
      const boundary = isWord(before(at)) !== isWord(codePointAt(at));
      return kind === "word" ? boundary : !boundary;
    };

    // Threads: a program counter and where its match started, in priority order.
    let pcs = new Int32Array(size);
    let starts = new Int32Array(size);
    let count = 0;
    let nextPcs = new Int32Array(size);
    let nextStarts = new Int32Array(size);
    let nextCount = 0;
    const seen = new Int32Array(size).fill(-1);
    const stack = new Int32Array(size * 2 + 2);

    /** Follows jumps, splits and assertions from `pc` at position `at`, adding threads in priority order. */
    const add = (into: "current" | "next", pc: number, start: number, at: number) => {
      let top = 0;
      stack[top++] = pc;
      while (top > 0) {
        const current = stack[--top] as number;
        if (seen[current] === at) continue;
        seen[current] = at;
        const instruction = program[current] as Instruction;
        if (instruction.op === "jump") stack[top++] = instruction.to;
        else if (instruction.op === "split") {
          stack[top++] = instruction.second;
          stack[top++] = instruction.first;
        } else if (instruction.op === "assert") {
          if (holds(instruction.kind, at)) stack[top++] = current + 1;
        } else if (into === "current") {
          pcs[count] = current;
          starts[count++] = start;
        } else {
          nextPcs[nextCount] = current;
          nextStarts[nextCount++] = start;
        }
      }
    };

    let found: { index: number; end: number } | undefined;
    for (let at = from; at <= length; ) {
      // A new attempt starts here, with the lowest priority, until a match is found.
      if (!found) add("current", 0, at, at);
      const codePoint = codePointAt(at);
      const width = codePoint > 0xffff ? 2 : 1;
      // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, with no thread the loop below does nothing and the scan goes on or stops the same way; this only stops it sooner
      if (count === 0) {
        // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, with no thread and a match found (or at the end) nothing can change; this only stops the scan sooner
        if (found || at === length) break;
        at += width;
        continue;
      }
      nextCount = 0;
      for (let thread = 0; thread < count; thread++) {
        const instruction = program[pcs[thread] as number] as Instruction;
        if (instruction.op === "match") {
          found = { index: starts[thread] as number, end: at };
          break; // threads after this one have lower priority
        }
        // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: equivalent, threads only ever rest on char or match instructions (match stops the loop first), a thread added at the end is dropped by the break below, and add() files anything but "current" as next
        if (instruction.op === "char" && codePoint >= 0 && instruction.test(codePoint)) add("next", (pcs[thread] as number) + 1, starts[thread] as number, at + width);
      }
      // Stryker disable next-line ConditionalExpression: equivalent, past the end no character is read, so the next round adds nothing and the loop ends
      if (at === length) break;
      [pcs, nextPcs] = [nextPcs, pcs];
      [starts, nextStarts] = [nextStarts, starts];
      count = nextCount;
      // Stryker disable next-line ConditionalExpression: equivalent, the next round finds no thread and stops on the match found
      if (count === 0 && found) break;
      at += width;
    }
    return found ? { ...found, text: text.slice(found.index, found.end) } : undefined;
  };

  return {
    source,
    exec,
    test: (text) => exec(text) !== undefined,
    replaceAll(text, replacement) {
      let out = "";
      let last = 0;
      let count = 0;
      for (let from = 0; from <= text.length; ) {
        const match = exec(text, from);
        if (!match) break;
        count++;
        out += text.slice(last, match.index) + replacement;
        last = match.end;
        if (match.end > match.index) from = match.end;
        else {
          // An empty match: step over one code point, as a global RegExp does with the u flag.
          const codePoint = text.codePointAt(match.end);
          from = match.end + (codePoint !== undefined && codePoint > 0xffff ? 2 : 1);
        }
      }
      // Stryker disable next-line ConditionalExpression: equivalent, with no match out is empty and last 0, so the text is the same
      return count === 0 ? { text, count } : { text: out + text.slice(last), count };
    },
  };
}
