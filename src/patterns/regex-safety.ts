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
export function unsafeRegexReason(source: string): string | undefined {
  interface Group {
    /** The group's body repeats something or offers alternatives. */
    ambiguous: boolean;
  }
  const stack: Group[] = [{ ambiguous: false }];
  /** What the last atom was, for the quantifier that may follow it. */
  let last: "none" | "atom" | { group: Group } = "none";
  const top = () => stack[stack.length - 1] as Group;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<")) {
        return `back-reference \\${next === "k" ? "k<…>" : next} can take exponential time to match; match the text again explicitly instead`;
      }
      // \p{…}, \u{…} and \x.. are one atom.
      if ((next === "p" || next === "P" || next === "u") && source[i + 2] === "{") i = Math.max(i + 1, source.indexOf("}", i));
      else i += 1;
      last = "atom";
      continue;
    }
    if (char === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      last = "atom";
      continue;
    }
    if (char === "(") {
      stack.push({ ambiguous: false });
      // (?:, (?<name>, and lookarounds (?=, (?!, (?<=, (?<!: skip the marker.
      if (source[i + 1] === "?") {
        if (source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!") i = source.indexOf(">", i);
        else i += source[i + 2] === "<" ? 3 : 2;
      }
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
      last = "none";
      continue;
    }
    const quantifier = /^(?:[*+]|\{\d+,\d*\})/.exec(source.slice(i));
    if (quantifier || char === "?") {
      const text = quantifier ? quantifier[0] : "?";
      const repeats = quantifier !== null && !/^\{(\d+),\1\}$/.test(text) && text !== "{0,1}";
      if (repeats && typeof last === "object" && last.group.ambiguous) {
        return `a repeated group that itself repeats or has alternatives (e.g. (a+)+ or (a|b)*) can take exponential time to match; repeat the inner part only (a+), or use a character class ([ab]*)`;
      }
      if (repeats || text === "?") top().ambiguous = true;
      i += text.length - 1;
      if (source[i + 1] === "?") i++; // lazy
      last = "none";
      continue;
    }
    if (char === "{") {
      // {n} repeats a fixed number of times: like writing the atom out.
      const fixed = /^\{(\d+)\}/.exec(source.slice(i));
      if (fixed) {
        if (typeof last === "object" && last.group.ambiguous && Number(fixed[1]) > 1) {
          return `a repeated group that itself repeats or has alternatives can take exponential time to match; repeat the inner part only`;
        }
        i += fixed[0].length - 1;
        last = "none";
        continue;
      }
    }
    last = "atom";
  }
  return undefined;
}
