/**
 * The source text of a value inside a JSON document. A provider body that carries model output
 * as JSON (Anthropic's `tool_use.input`) must be kept as it was written: JSON.parse turns `1.0`
 * into `1` and rounds integers beyond 2^53, so re-serialising the parsed value is not the same
 * text. This only finds boundaries; the document must already have passed JSON.parse.
 */
export type JsonPath = readonly (string | number)[];

/** The exact text of the value at `path`, or undefined when the path is not in the document. */
export function jsonTextAt(document: string, path: JsonPath): string | undefined {
  const scanner = new Scanner(document);
  let start = scanner.skipSpace(0);
  for (const step of path) {
    const next = typeof step === "string" ? scanner.member(start, step) : scanner.element(start, step);
    if (next === undefined) return undefined;
    start = next;
  }
  return document.slice(start, scanner.valueEnd(start));
}

class Scanner {
  constructor(private readonly text: string) {}

  skipSpace(at: number): number {
    let position = at;
    while (position < this.text.length && " \t\n\r".includes(this.text[position]!)) position++;
    return position;
  }

  /** The start of member `key` of the object at `at`; the last one wins, as in JSON.parse. */
  member(at: number, key: string): number | undefined {
    if (this.text[at] !== "{") return undefined;
    let found: number | undefined;
    let position = this.skipSpace(at + 1);
    if (this.text[position] === "}") return undefined;
    for (;;) {
      const keyEnd = this.stringEnd(position);
      const name = JSON.parse(this.text.slice(position, keyEnd)) as string;
      const valueStart = this.skipSpace(this.skipSpace(keyEnd) + 1);
      if (name === key) found = valueStart;
      position = this.skipSpace(this.valueEnd(valueStart));
      if (this.text[position] !== ",") return found;
      position = this.skipSpace(position + 1);
    }
  }

  /** The start of element `index` of the array at `at`. */
  element(at: number, index: number): number | undefined {
    if (this.text[at] !== "[") return undefined;
    let position = this.skipSpace(at + 1);
    if (this.text[position] === "]") return undefined;
    for (let current = 0; ; current++) {
      if (current === index) return position;
      position = this.skipSpace(this.valueEnd(position));
      if (this.text[position] !== ",") return undefined;
      position = this.skipSpace(position + 1);
    }
  }

  /** Where the value starting at `at` ends (exclusive). */
  valueEnd(at: number): number {
    const first = this.text[at];
    if (first === '"') return this.stringEnd(at);
    if (first !== "{" && first !== "[") {
      // A number or a literal: it runs to the next delimiter.
      let position = at;
      while (position < this.text.length && !",]} \t\n\r".includes(this.text[position]!)) position++;
      return position;
    }
    // An object or array: count brackets, skipping strings (which may contain brackets).
    let depth = 0;
    let position = at;
    while (position < this.text.length) {
      const char = this.text[position]!;
      if (char === '"') {
        position = this.stringEnd(position);
        continue;
      }
      if (char === "{" || char === "[") depth++;
      else if (char === "}" || char === "]") {
        depth--;
        if (depth === 0) return position + 1;
      }
      position++;
    }
    return position;
  }

  /** Where the string starting at `at` (its opening quote) ends, after its closing quote. */
  stringEnd(at: number): number {
    let position = at + 1;
    while (position < this.text.length) {
      const char = this.text[position]!;
      if (char === "\\") position += 2;
      else if (char === '"') return position + 1;
      else position++;
    }
    return position;
  }
}
