import { MAY_LOOK_SECRET, REDACTION, SECRET_PATTERNS, SECRET_STARTS } from "./patterns.js";
import { searchable } from "./scrub.js";
import { setOwn } from "./by-key.js";
import { grownFrom, immutable, isImmutable } from "../canonical/index.js";

export interface RedactionSettings {
  /** Known secret values (API keys the config names, provider variables): removed wherever they appear. */
  secrets?: readonly string[];
  /** Also remove text that looks like a credential (SECRET_PATTERNS). Default true. */
  patterns?: boolean;
  /** Whole strings never touched: the words of a format (an event's type or status), which no secret can be. */
  keep?: ReadonlySet<string>;
}

export interface Redactor {
  /** The text without any known secret value or credential-looking text. */
  text(text: string): string;
  /**
   * A JSON-like value with every string (object keys included) redacted. Parts without secrets
   * are returned as they are, not copied: a 50 MB answer must not be duplicated to learn that
   * it holds no key. `except` names a top-level key of an object whose value is left alone.
   */
  value<T>(value: T, except?: string): T;
  /**
   * Where a text that is still growing (a model's stream) can be cut, so that redacting the part
   * before the cut on its own removes everything there is to remove from it: no known value and
   * no credential-looking text the rest could complete runs across the cut. What is held back is
   * the longest end of the text that begins a known value (so at most that value's length less
   * one character) or the literal start of a credential pattern, or, after the start of something
   * credential-looking in the last PATTERN_REACH characters, the text from there on. Ordinary
   * text is passed on at once.
   */
  cut(text: string): number;
}

/** Sets a key of a redacted copy: two keys that differ only in a secret would collide, so the later ones are numbered. */
function put(out: Record<string, unknown>, key: string, item: unknown): void {
  let name = key;
  for (let n = 2; Object.hasOwn(out, name); n++) name = `${key}#${n}`;
  setOwn(out, name, item);
}

/** How far back the start of a credential-looking text still holds a stream's tail back. */
const PATTERN_REACH = 8192;
const ANCHOR = new RegExp(MAY_LOOK_SECRET.source, "g");

/** The length of the longest end of `text` that is the beginning (not the whole) of one of `words`. */
function heldEnd(text: string, words: readonly string[]): number {
  let held = 0;
  for (const word of words) {
    for (let length = Math.min(text.length, word.length - 1); length > held; length--) {
      if (text.endsWith(word.slice(0, length))) {
        held = length;
        break;
      }
    }
  }
  return held;
}

/**
 * Passes over one text before giving up on finding the secret-free form and redacting the
 * whole string: a replacement can, next to the text around it, spell a secret anew only in
 * contrived cases, and each pass removes at least one occurrence.
 */
const MAX_PASSES = 4;

/**
 * How a secret can be spelled inside text that is itself JSON (a model's raw tool-argument
 * text, a tool result a tool serialised itself), once and twice escaped.
 */
function spellings(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([secret, once, twice])];
}

/**
 * One pass for every place a secret could be recorded. Known values are removed first, longest
 * first, so a key that contains a shorter one is removed whole; then the patterns.
 */
export function createRedactor(settings: RedactionSettings = {}): Redactor {
  // A "secret" inside the marker itself could never be removed: every replacement would spell it.
  // Stryker disable next-line MethodExpression: equivalent, the next line drops needles inside the marker too, and a secret's escaped spellings add a backslash, which the marker does not hold
  const values = searchable(settings.secrets ?? []).filter((secret) => !REDACTION.includes(secret));
  // Stryker disable next-line MethodExpression: equivalent for the filter, the line above already dropped secrets inside the marker, and their escaped spellings add a backslash, which the marker does not hold
  const needles = [...new Set(values.flatMap(spellings))].filter((needle) => !REDACTION.includes(needle)).sort((a, b) => b.length - a.length);
  const patterns = settings.patterns === false ? [] : SECRET_PATTERNS.map(({ pattern }) => pattern);
  const keep = settings.keep ?? new Set<string>();

  const once = (text: string): string => {
    let out = text;
    // Stryker disable next-line ConditionalExpression: equivalent, splitting on a needle the text does not hold changes nothing; the test only saves time
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTION);
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      // Stryker disable next-line ConditionalExpression: equivalent, replacing a pattern the text does not hold changes nothing; the test only saves time
      if (pattern.test(out)) out = out.replace(pattern, REDACTION);
      pattern.lastIndex = 0;
    }
    return out;
  };

  // Most strings hold nothing to remove: one scan per known value and one for all the patterns
  // says so, and the string is returned as it is, never copied.
  // A loop, not needles.some(...): this runs for every string of every event, and a closure per call was garbage per string.
  const mayHold = (input: string): boolean => {
    for (const needle of needles) if (input.includes(needle)) return true;
    return patterns.length > 0 && MAY_LOOK_SECRET.test(input);
  };

  const text = (input: string): string => {
    if (keep.has(input) || !mayHold(input)) return input;
    let current = input;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const next = once(current);
      // Stryker disable next-line ConditionalExpression: equivalent, once a pass changes nothing every later pass changes nothing, and the check after the loop returns the same text
      if (next === current) return current;
      current = next;
    }
    return once(current) === current ? current : REDACTION;
  };

  // An immutable value is redacted once per redactor: a conversation's messages are sent, and
  // logged, again on every step. What it becomes is immutable too (it is handed out each time).
  const redactedOnce = new WeakMap<object, unknown>();

  const value = (node: unknown): unknown => {
    if (typeof node === "string") return text(node);
    if (isImmutable(node)) {
      let redacted = redactedOnce.get(node);
      if (redacted === undefined) {
        redacted = immutable(Array.isArray(node) ? list(node) : walk(node));
        redactedOnce.set(node, redacted);
      }
      return redacted;
    }
    return walk(node);
  };

  // A conversation one step on: when the list it grew from held nothing to remove, only the
  // messages it added are looked at.
  const list = (node: readonly unknown[]): unknown => {
    const earlier = grownFrom(node);
    if (earlier === undefined || redactedOnce.get(earlier) !== earlier) return walk(node);
    for (let index = earlier.length; index < node.length; index++) if (value(node[index]) !== node[index]) return walk(node);
    return node;
  };

  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        const redacted = value(item);
        if (redacted !== item) (copy ??= [...node])[index] = redacted;
      }
      return copy ?? node;
    }
    // Stryker disable next-line ConditionalExpression: equivalent for the type test, Object.entries of a number or boolean is empty, so it is returned as it is
    if (node !== null && typeof node === "object") return record(node as Record<string, unknown>, undefined);
    return node;
  };

  // An object is copied only from the first key or value that changes (most objects hold no
  // secret and are returned as they are, without a copy made and thrown away); `except` is a
  // key whose value is left as it is.
  const record = (node: Record<string, unknown>, except: string | undefined): Record<string, unknown> => {
    const keys = Object.keys(node);
    let out: Record<string, unknown> | undefined;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      const item = node[key];
      const redactedKey = key === except ? key : text(key);
      const redacted = key === except ? item : value(item);
      if (!out && (redactedKey !== key || redacted !== item)) {
        out = {};
        for (const earlier of keys.slice(0, index)) put(out, earlier, node[earlier]);
      }
      if (out) put(out, redactedKey, redacted);
    }
    return out ?? node;
  };

  const starts = patterns.length > 0 ? [...needles, ...SECRET_STARTS] : needles;
  const cut = (input: string): number => {
    let at = input.length - heldEnd(input, starts);
    if (patterns.length > 0) {
      ANCHOR.lastIndex = Math.max(0, input.length - PATTERN_REACH);
      const anchor = ANCHOR.exec(input);
      if (anchor) at = Math.min(at, anchor.index);
    }
    // A known value that runs across the cut moves it to the value's start (and may meet another).
    for (let moved = true; moved && at > 0; ) {
      moved = false;
      for (const needle of needles) {
        const found = input.indexOf(needle, Math.max(0, at - needle.length + 1));
        if (found !== -1 && found < at) {
          at = found;
          moved = true;
        }
      }
    }
    return Math.max(0, at);
  };

  return {
    text,
    value: <T>(input: T, except?: string) =>
      (except !== undefined && input !== null && typeof input === "object" && !Array.isArray(input) ? record(input as Record<string, unknown>, except) : value(input)) as T,
    cut,
  };
}
