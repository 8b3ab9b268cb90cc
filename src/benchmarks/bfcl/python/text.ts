/** Python's `str.strip` family, whose idea of whitespace is not JavaScript's `trim`. */
import { isPythonSpace } from "../../gaia/index.js";

const charSets = new Map<string, Set<string>>();

/** `text.strip(chars)`; without chars, Python's whitespace (`str.isspace`: no U+FEFF, but U+001C..U+001F and U+0085). */
export function pyStrip(text: string, chars?: string): string {
  let start = 0;
  let end = text.length;
  if (chars === undefined) {
    while (start < end && isPythonSpace(text.charCodeAt(start))) start++;
    while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--;
  } else {
    let set = charSets.get(chars);
    if (!set) {
      set = new Set(chars);
      if (charSets.size < 64) charSets.set(chars, set);
    }
    while (start < end && set.has(text[start] as string)) start++;
    while (end > start && set.has(text[end - 1] as string)) end--;
  }
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
