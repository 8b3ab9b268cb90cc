import { readFileSync } from "node:fs";
import { CST, Composer, LineCounter, Parser, YAMLParseError, isScalar, visit, type Document } from "yaml";
import { z } from "zod";
import { checkedParse } from "../contracts/checked-parse.js";
import { ConfigError } from "../errors/index.js";
import { nearest } from "../text/index.js";

type PathKey = PropertyKey;

function formatPath(path: readonly PathKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}

/** The keys that would have been accepted at a path, for "did you mean" suggestions. */
function objectKeysAt(schema: z.ZodType, path: readonly PathKey[]): string[] {
  const target = schemaAt(schema, path);
  if (target instanceof z.ZodObject) return Object.keys(target.shape as object);
  if (target instanceof z.ZodUnion) return (target.options as z.ZodType[]).flatMap((option) => objectKeysAt(option, []));
  return [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else break;
  }
  return current;
}

/** The schema of the value at a path, through objects, arrays, records and wrappers. */
export function schemaAt(schema: z.ZodType, path: readonly PathKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(key)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodUnion) {
      const options = current.options as z.ZodType[];
      current = options.map((option) => schemaAt(option, [key])).find((found) => found !== undefined);
    } else return undefined;
  }
  return unwrap(current);
}

/** Text (from an environment variable) as the type the schema wants at that path. */
export function coerceText(schema: z.ZodType, path: readonly PathKey[], text: string): unknown {
  const target = schemaAt(schema, path);
  if (target instanceof z.ZodNumber) {
    const number = Number(text);
    return text.trim() !== "" && Number.isFinite(number) ? number : text;
  }
  if (target instanceof z.ZodBoolean) return text === "true" ? true : text === "false" ? false : text;
  return text;
}

/** Turns the first zod issue into an error that names the path and, for a typo'd key, the nearest known key. */
export function issueToError(schema: z.ZodType, error: z.ZodError, file: string | undefined): ConfigError {
  const issue = error.issues[0];
  if (!issue) return new ConfigError("invalid", { file });
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const path = formatPath([...issue.path, key]);
    const suggestion = nearest(key, objectKeysAt(schema, issue.path));
    return new ConfigError(
      `unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
      { file, path },
    );
  }
  const path = formatPath(issue.path);
  return new ConfigError(issue.message, { file, ...(path ? { path } : {}) });
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, file?: string): z.infer<S> {
  const result = checkedParse(schema, value);
  if (!result.success) throw issueToError(schema, result.error, file);
  return result.data;
}

/**
 * How many alias expansions one YAML file may make (yaml's maxAliasCount, which counts each
 * alias by the size of what it repeats). Anchors that are reused a few times fit easily; a
 * "billion laughs" file, whose nested aliases would expand to gigabytes, is refused.
 */
export const MAX_YAML_ALIASES = 100;

/** Double-quoted scalars longer than this are resolved here rather than by the yaml package. */
const LONG_SCALAR = 4096;

/** JSON refuses raw control characters (a tab) in a string, where YAML keeps them. */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) < 0x20) return true;
  return false;
}

/**
 * The value of a long double-quoted scalar, when it is simple enough to get without yaml: the
 * package builds such a value one character at a time, which for a 50 MB answer in a mock
 * script peaks at gigabytes. Text without escapes or line breaks is its own value; with JSON's
 * escapes only, JSON reads it the same way. Anything else (YAML-only escapes, folded lines) is
 * left to yaml.
 */
function quickDoubleQuoted(source: string): string | undefined {
  const inner = source.slice(1, -1);
  if (/[\n\r]/.test(inner)) return undefined;
  if (!inner.includes("\\")) return inner;
  if (/\\[^"\\/bfnrtu]/.test(inner) || hasControlCharacter(inner)) return undefined;
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Parses one YAML document like yaml's parseDocument, resolving long double-quoted scalars
 * itself (see quickDoubleQuoted): such a token is handed to yaml as a single-quoted scalar of
 * the same length, so every position in an error message stays right, and its value is put
 * back into the node afterwards.
 */
function parseOneDocument(text: string, lineCounter: LineCounter): Document.Parsed {
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const values = new Map<number, string>();
  const quick = (token: CST.Token | undefined) => {
    if (token?.type !== "double-quoted-scalar" || token.source.length < LONG_SCALAR) return;
    const value = quickDoubleQuoted(token.source);
    if (value === undefined) return;
    values.set(token.offset, value);
    (token as CST.FlowScalar).type = "single-quoted-scalar";
    token.source = `'${"x".repeat(token.source.length - 2)}'`;
  };
  for (const token of tokens) {
    if (token.type !== "document") continue;
    quick(token.value);
    CST.visit(token, (item) => {
      quick(item.key ?? undefined);
      quick(item.value);
    });
  }
  const composer = new Composer({ prettyErrors: false, uniqueKeys: true });
  let document: Document.Parsed | undefined;
  for (const parsed of composer.compose(tokens, true, text.length)) {
    if (!document) document = parsed;
    else {
      document.errors.push(new YAMLParseError(parsed.range.slice(0, 2) as [number, number], "MULTIPLE_DOCS", "Source contains multiple documents; please use YAML.parseAllDocuments()"));
      break;
    }
  }
  const doc = document as Document.Parsed;
  if (values.size > 0) {
    visit(doc, {
      Scalar(_key, node) {
        const value = node.range ? values.get(node.range[0]) : undefined;
        if (value !== undefined && isScalar(node)) node.value = value;
      },
    });
  }
  return doc;
}

/** Parses YAML; a syntax error names the file, line and column. */
export function parseYaml(text: string, file?: string): unknown {
  const lineCounter = new LineCounter();
  const document = parseOneDocument(text, lineCounter);
  const problem = document.errors[0];
  if (problem) {
    const position = lineCounter.linePos(problem.pos[0]);
    const where = position ? `line ${position.line}, column ${position.col}` : "";
    const message = problem.message.split("\n")[0] ?? problem.message;
    throw new ConfigError(`malformed YAML${where ? ` at ${where}` : ""}: ${message}`, { file });
  }
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (error) {
    // yaml throws a plain ReferenceError for an alias bomb (and for an alias to no anchor).
    if (error instanceof ReferenceError) {
      const excessive = /excessive alias count/i.test(error.message);
      throw new ConfigError(
        excessive ? `YAML aliases expand too much (more than ${MAX_YAML_ALIASES} expansions): write the repeated parts out, or use fewer nested aliases` : `malformed YAML: ${error.message}`,
        { file },
      );
    }
    throw error;
  }
}

export function readTextFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(code === "ENOENT" ? `${what} not found` : `cannot read ${what}: ${(error as Error).message}`, { file });
  }
}

export function loadYamlFile<S extends z.ZodType>(schema: S, file: string, what: string, transform?: (raw: unknown) => unknown): z.infer<S> {
  const raw = parseYaml(readTextFile(file, what), file);
  return validate(schema, transform ? transform(raw) : raw, file);
}
