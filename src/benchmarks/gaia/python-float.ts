/**
 * Python's `float(str)`, exactly as CPython 3.11 parses a string, because GAIA's official scorer
 * decides "is this a number?" with it and JavaScript's `Number` disagrees in both directions
 * (`Number("")` is 0 and `Number("0x10")` is 16, where Python raises; Python accepts `1_000`,
 * fullwidth digits and `infinity`, where `Number` gives NaN).
 *
 * CPython first maps every non-ASCII character: Unicode whitespace becomes a space, a decimal
 * digit (category Nd) becomes its ASCII digit, anything else makes the string invalid. Then it
 * strips ASCII whitespace at both ends, applies the underscore rule and parses what is left as
 * a decimal literal, `inf`/`infinity` or `nan` (any case, optional sign).
 */

/** Python's `str.isspace()` set, which is also what `\s` matches in a `str` pattern. */
export function isPythonSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/**
 * The value of a Unicode decimal digit. Unicode guarantees that Nd characters come in
 * contiguous runs of ten, 0 to 9, so the value is the distance from the run's start modulo 10
 * (adjacent runs, as in the mathematical digits, are each ten long).
 */
function decimalValue(code: number): number | undefined {
  if (!DECIMAL_DIGIT.test(String.fromCodePoint(code))) return undefined;
  let start = code;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

/** Step 1: CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`; undefined when a character cannot be part of a number. */
function toAscii(text: string): string | undefined {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text;
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code < 0x7f) out += char;
    else if (isPythonSpace(code)) out += " ";
    else {
      const digit = decimalValue(code);
      if (digit === undefined) return undefined;
      out += String(digit);
    }
  }
  return out;
}

// Py_ISSPACE: the ASCII whitespace C's isspace knows, which excludes \x1c-\x1f.
const isAsciiSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d);
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/** CPython's `_Py_string_to_number_with_underscores`: `_` only between two digits. */
function withoutUnderscores(text: string): string | undefined {
  if (!text.includes("_")) return text;
  let out = "";
  let previous = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5f) {
      if (!isDigit(previous)) return undefined;
    } else {
      if (previous === 0x5f && !isDigit(code)) return undefined;
      out += text[i];
    }
    previous = code;
  }
  return previous === 0x5f ? undefined : out;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** `float(text)` in Python: the number, or undefined where Python raises ValueError. */
export function pythonFloat(text: string): number | undefined {
  const ascii = toAscii(text);
  if (ascii === undefined) return undefined;
  let start = 0;
  let end = ascii.length;
  while (start < end && isAsciiSpace(ascii.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(ascii.charCodeAt(end - 1))) end--;
  const literal = withoutUnderscores(ascii.slice(start, end));
  if (literal === undefined) return undefined;
  // A decimal literal is correctly rounded by both CPython's dtoa and JavaScript's Number.
  if (DECIMAL.test(literal)) return Number(literal);
  const special = SPECIAL.exec(literal);
  if (!special) return undefined;
  if ((special[2] as string).toLowerCase() === "nan") return Number.NaN;
  return special[1] === "-" ? -Infinity : Infinity;
}
