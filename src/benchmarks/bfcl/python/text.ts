/** Python's `str.strip` family, whose idea of whitespace is not JavaScript's `trim`. */

// str.isspace(): no U+FEFF (which trim removes), but U+001C..U+001F and U+0085 (which it keeps).
const PY_WHITESPACE = new Set(
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000",
);

/** `text.strip(chars)`; without chars, Python's whitespace. */
const charSets = new Map<string, Set<string>>();

export function pyStrip(text: string, chars?: string): string {
  let set = PY_WHITESPACE;
  if (chars !== undefined) {
    set = charSets.get(chars) ?? new Set(chars);
    if (charSets.size < 64) charSets.set(chars, set);
  }
  let start = 0;
  let end = text.length;
  while (start < end && set.has(text[start] as string)) start++;
  while (end > start && set.has(text[end - 1] as string)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

export const isPyWhitespace = (char: string): boolean => PY_WHITESPACE.has(char);
