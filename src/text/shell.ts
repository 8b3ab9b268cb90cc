/**
 * One word as a POSIX shell reads it back, for commands Retrace prints for a person to paste.
 * Words of only safe characters are left as they are; anything else is single-quoted, with a
 * quote inside written as '\'' (a backslash does not escape inside single quotes).
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** A text matched literally by a regular expression (what `-t` takes): every metacharacter escaped. */
export function regexLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
