/**
 * Turning a model's output into BFCL's decoded form, `[{name: {param: value}}]`, as the
 * official handlers do: `default_decode_ast_prompting` + `ast_parse` for prompting mode, and
 * the OpenAI handler's `decode_ast` (a JSON parse of each call's arguments) for FC mode.
 */
import { QuietError } from "./python/quiet-error.js";
import { parseForeignCall } from "./foreign-calls.js";
import { parseExpression } from "./python/parse.js";
import { pyJsonLoads } from "./python/json.js";
import { resolveCall, resolveValue } from "./python/resolve.js";
import { pyStrip } from "./python/text.js";
import { PyDict, type PyValue } from "./python/value.js";
import type { Language } from "./categories.js";

export class DecodeError extends QuietError {}

/** A model's output in FC mode: its tool calls as `{name: argumentsJson}`, or its text when it made none. */
export type FcOutput = string | readonly Readonly<Record<string, unknown>>[];

export function decodePrompting(raw: string, language: Language = "python"): PyValue {
  // Strips backticks, newlines and spaces only: a fenced ```python block keeps its "python"
  // tag and then fails to parse, as it does officially.
  let result = pyStrip(raw, "`\n ");
  if (!result.startsWith("[")) result = `[${result}`;
  if (!result.endsWith("]")) result = `${result}]`;
  try {
    if (language === "java" || language === "javascript") return parseForeignCall(result.slice(1, -1), language);
    return decodePython(result);
  } catch (error) {
    throw new DecodeError(`Invalid syntax. Failed to decode AST. ${(error as Error).message}`, { cause: error });
  }
}

function decodePython(input: string): PyValue {
  // Only wrapping quotes a model may have added: strip() then strip("'").
  const body = parseExpression(pyStrip(pyStrip(input), "'"));
  if (body.type === "Call") return [resolveCall(body)];
  if (body.type !== "List" && body.type !== "Tuple" && body.type !== "Set") throw new Error(`'${body.type}' object has no attribute 'elts'`);
  return body.elts.map((elt) => {
    if (elt.type !== "Call") throw new Error("AssertionError: an element is not a call");
    return resolveCall(elt);
  });
}

export function decodeFc(output: FcOutput): PyValue {
  // Python iterates a text reply character by character and fails on the first; an empty
  // text has no characters and so decodes to no calls at all.
  if (typeof output === "string") {
    if (output.length === 0) return [];
    throw new DecodeError("Invalid syntax. Failed to decode AST. 'str' object has no attribute 'keys'");
  }
  const decoded: PyValue[] = [];
  for (const call of output) {
    const names = Object.keys(call);
    const name = names[0];
    if (name === undefined) throw new DecodeError("Invalid syntax. Failed to decode AST. list index out of range");
    const args = call[name];
    if (typeof args !== "string") throw new DecodeError("Invalid syntax. Failed to decode AST. the JSON object must be str");
    try {
      decoded.push(PyDict.of([[name, pyJsonLoads(args)]]));
    } catch (error) {
      throw new DecodeError(`Invalid syntax. Failed to decode AST. ${(error as Error).message}`, { cause: error });
    }
  }
  return decoded;
}

/** A decoded call: one function name and its arguments. */
export interface DecodedCall {
  name: string;
  args: PyDict;
}

/**
 * `is_function_calling_format_output`: a list of one-key dicts whose value is a dict. The
 * calls when it is, undefined when it is not (`ast_decoder:decoder_wrong_output_format`).
 */
export function asCalls(decoded: PyValue): DecodedCall[] | undefined {
  if (!Array.isArray(decoded)) return undefined;
  const calls: DecodedCall[] = [];
  for (const item of decoded) {
    if (!(item instanceof PyDict) || item.size !== 1) return undefined;
    const [name, args] = item.first() as [PyValue, PyValue];
    if (!(args instanceof PyDict)) return undefined;
    calls.push({ name: typeof name === "string" ? name : String(name), args });
  }
  return calls;
}

/** `is_empty_output`: no call in it (not in the format, `[]`, or `[{}]`). */
export function isEmptyOutput(decoded: PyValue): boolean {
  if (!Array.isArray(decoded)) return true;
  if (decoded.length === 1 && decoded[0] instanceof PyDict && decoded[0].size === 0) return true;
  return asCalls(decoded) === undefined || decoded.length === 0;
}
