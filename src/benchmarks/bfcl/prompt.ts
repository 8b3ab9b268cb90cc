/**
 * What the model is shown: BFCL's default system prompt for prompting mode
 * (`ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic`,
 * bfcl_eval/constants/default_prompts.py), byte for byte — the missing space after the
 * persona and the double space where the empty `{param_types}` was are the official text —
 * and the function docs with the language hints `add_language_specific_hint_to_function_doc`
 * adds. The docs are dumped as Python's `json.dumps(functions, indent=4)` would (ASCII-only,
 * `1.0` stays `1.0`), which is why they are kept as Python values.
 */
import { languageOf } from "./categories.js";
import { PyDict, pyFloatRepr, PyTuple, type PyValue } from "./python/value.js";

const PERSONA = "You are an expert in composing functions.";
const TASK =
  "You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.";
const TOOL_CALL_FORMAT =
  "You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the response.";
const MULTITURN_BEHAVIOR =
  "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.";

export function systemPrompt(functions: PyValue): string {
  const tools = `Here is a list of functions in json format that you can invoke.\n${pyJsonDumps(functions, 4)}\n`;
  return `${PERSONA}${TASK}\n\n${TOOL_CALL_FORMAT}\n\n${MULTITURN_BEHAVIOR}\n\n${tools}`;
}

/** `_func_doc_language_specific_pre_processing`, on a copy. */
export function withLanguageHints(functions: PyValue, category: string): PyValue {
  if (!Array.isArray(functions)) return functions;
  const language = languageOf(category);
  const hint = language === "java" ? " Note that the provided function is in Java 8 SDK syntax." : language === "javascript" ? " Note that the provided function is in JavaScript syntax." : " Note that the provided function is in Python 3 syntax.";
  const name = language === "java" ? "Java" : "JavaScript";
  return functions.map((raw) => {
    const item = copy(raw) as PyDict;
    item.set("description", `${String(item.get("description") ?? "")}${hint}`);
    const parameters = item.get("parameters");
    const properties = parameters instanceof PyDict ? parameters.get("properties") : undefined;
    if (language === "python" || !(properties instanceof PyDict)) return item;
    for (const value of properties.values()) {
      if (!(value instanceof PyDict)) continue;
      const type = String(value.get("type"));
      const description = (): string => String(value.get("description") ?? "");
      if (type === "any") value.set("description", `${description()} This parameter can be of any type of ${name} object in string representation.`);
      else value.set("description", `${description()} This is ${name} ${type} type parameter in string representation.`);
      const items = value.get("items");
      const listType = language === "java" ? type === "ArrayList" || type === "Array" : type === "array";
      if (listType) {
        const itemType = items instanceof PyDict ? String(items.get("type")) : "None";
        value.set("description", `${description()} The list elements are of type ${itemType}; they are not in string representation.`);
        deleteKey(value, "items");
      }
      if (language === "javascript" && type === "dict" && value.has("properties")) {
        value.set("description", `${description()} The dictionary entries have the following schema; they are not in string representation. ${pyJsonDumps(value.get("properties") as PyValue)}`);
        deleteKey(value, "properties");
      }
      value.set("type", "string");
    }
    return item;
  });
}

function deleteKey(dict: PyDict, key: string): void {
  dict.delete(key);
}

function copy(value: PyValue): PyValue {
  if (Array.isArray(value)) return value.map(copy);
  if (value instanceof PyTuple) return new PyTuple(value.items.map(copy));
  if (value instanceof PyDict) return PyDict.of([...value.entries()].map(([k, v]) => [k, copy(v)]));
  return value;
}

/** Python's `json.dumps(value, indent)` (ensure_ascii, `, `/`: ` separators; with indent, `,` + newline). */
export function pyJsonDumps(value: PyValue, indent?: number, level = 0): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? pyFloatRepr(value) : Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  if (typeof value === "string") return asciiJsonString(value);
  const items: string[] = [];
  let open: string;
  let close: string;
  if (value instanceof PyDict) {
    open = "{";
    close = "}";
    for (const [k, v] of value.entries()) items.push(`${asciiJsonString(typeof k === "string" ? k : String(k))}: ${pyJsonDumps(v, indent, level + 1)}`);
  } else {
    open = "[";
    close = "]";
    for (const item of Array.isArray(value) ? value : value.items) items.push(pyJsonDumps(item, indent, level + 1));
  }
  if (items.length === 0) return open + close;
  if (indent === undefined) return open + items.join(", ") + close;
  const inner = "\n" + " ".repeat(indent * (level + 1));
  return open + inner + items.join("," + inner) + "\n" + " ".repeat(indent * level) + close;
}

function asciiJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const char = text[i] as string;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out + '"';
}
