/**
 * FC mode's tools, as `convert_to_tool(functions, GORILLA_TO_OPENAPI, OPENAI_COMPLETIONS)`
 * builds them (model_handler/utils.py): `.` in a name becomes `_` (OpenAI-style names allow
 * only `[a-zA-Z0-9_-]`), the parameters become an "object", and each property's type is
 * mapped — float to number with " This is a float type value." appended and `format: float`,
 * dict to object, tuple to array, any (and any unknown type) to string.
 */
import type { ToolSpec } from "../../contracts/index.js";
import { PyDict, type PyValue } from "./python/value.js";
import { pyToJson } from "./results.js";

export const GORILLA_TO_OPENAPI: Record<string, string> = {
  integer: "integer", number: "number", float: "number", string: "string", boolean: "boolean", bool: "boolean", array: "array",
  list: "array", dict: "object", object: "object", tuple: "array", any: "string", byte: "integer", short: "integer", long: "integer",
  double: "number", char: "string", ArrayList: "array", Array: "array", HashMap: "object", Hashtable: "object", Queue: "array",
  Stack: "array", Any: "string", String: "string", Bigint: "integer",
};

export function mangleName(name: string): string {
  return name.replace(/\./g, "_");
}

type Json = Record<string, unknown>;

function mapType(type: unknown): string {
  // The official code indexes the table directly for `items` (a KeyError on an unknown type); unknown here becomes string, as for properties.
  return typeof type === "string" && Object.hasOwn(GORILLA_TO_OPENAPI, type) ? (GORILLA_TO_OPENAPI[type] as string) : "string";
}

function castProperties(properties: Json): Json {
  for (const [key, raw] of Object.entries(properties)) {
    const value = raw as Json;
    if (!("type" in value)) value.type = "string";
    else {
      if (value.type === "float") {
        value.format = "float";
        value.description = `${String(value.description ?? "")} This is a float type value.`;
      }
      value.type = mapType(value.type);
    }
    properties[key] = value;
    if (value.type === "array" || value.type === "object") {
      if (value.properties && typeof value.properties === "object") value.properties = castProperties(value.properties as Json);
      else if (value.items && typeof value.items === "object") {
        const items = value.items as Json;
        items.type = mapType(items.type);
        if (items.type === "array" && items.items && typeof items.items === "object") (items.items as Json).type = mapType((items.items as Json).type);
        else if (items.type === "object" && items.properties && typeof items.properties === "object") items.properties = castProperties(items.properties as Json);
      }
    }
  }
  return properties;
}

/** The tools for one entry, from its functions with the language hints already added. */
export function toolsFor(functions: PyValue): ToolSpec[] {
  if (!Array.isArray(functions)) return [];
  return functions.map((fn) => {
    const item = pyToJson(fn instanceof PyDict ? fn : new PyDict()) as Json;
    const parameters = (item.parameters ?? {}) as Json;
    parameters.type = "object";
    parameters.properties = castProperties((parameters.properties ?? {}) as Json);
    return { name: mangleName(String(item.name)), description: String(item.description ?? ""), parameters };
  });
}
