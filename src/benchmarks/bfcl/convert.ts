/**
 * The official Java and JavaScript type converters (eval_checker/ast_eval/type_convertor/):
 * a decoded value is a string, turned into a Python value by the parameter's declared type;
 * when the text does not have that type's form, the raw string is kept (and then fails the
 * type check). The regular expressions are the official ones. Python's `int()`/`float()`
 * fallbacks are reproduced by pyInt/pyFloat.
 */
import { QuietError } from "./python/quiet-error.js";
import { pythonFloat } from "../gaia/index.js";
import { pyStrip } from "./python/text.js";
import { PyDict, type PyValue } from "./python/value.js";

export class UnsupportedConversionError extends QuietError {}

export const JAVA_TYPES: Record<string, string> = {
  byte: "int", short: "int", integer: "int", float: "float", double: "float", long: "int", boolean: "bool", char: "str",
  Array: "list", ArrayList: "list", Set: "set", HashMap: "dict", Hashtable: "dict", Queue: "list", Stack: "list", String: "str", any: "str",
};

export const JS_TYPES: Record<string, string> = {
  String: "str", integer: "int", float: "float", Bigint: "int", Boolean: "bool", dict: "dict", array: "list", any: "str",
};

/** Python's `int(text)` for a str, or undefined where it raises ValueError. */
export function pyInt(text: string): bigint | undefined {
  const body = pyStrip(text);
  if (!/^[-+]?[0-9](?:_?[0-9])*$/.test(body)) return undefined;
  return BigInt(body.replace(/_/g, "").replace(/^\+/, ""));
}

/** Python's `float(text)` for a str, or undefined where it raises ValueError (GAIA's exact port). */
export const pyFloat = pythonFloat;

export function javaConvert(value: string, type: string, nested?: string): PyValue {
  if (!(type in JAVA_TYPES)) throw new UnsupportedConversionError(`Unsupported type: ${type}`);
  switch (type) {
    case "byte":
    case "short":
    case "integer":
      return /^-?\d+$/.test(value) ? BigInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(value) ? Number(value.replace(/[fF]$/, "")) : value;
    case "double":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) ? Number(value) : value;
    case "long":
      return /^-?\d+[lL]$/.test(value) ? BigInt(value.replace(/[lL]$/, "")) : value;
    case "boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "char":
      // The official pattern `^\'.$\'` can never match, so a char always stays its raw text.
      return value;
    case "Array":
      return javaArray(value, nested);
    case "ArrayList":
      return javaArrayList(value, nested);
    case "HashMap":
      return javaHashMap(value);
    case "String":
    case "any":
      return value;
    default:
      throw new UnsupportedConversionError(`${type} conversion is not implemented`);
  }
}

function javaArrayList(input: string, nested?: string): PyValue {
  const element = (text: string): PyValue => {
    if (nested === "char" || nested === "String") return text.slice(1, -1);
    return nested ? javaConvert(text, nested) : javaValue(text);
  };
  const asList = /new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)/.exec(input);
  if (asList) return (asList[1] as string).split(",").map((part) => element(pyStrip(part)));
  const adds = /new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}/s.exec(input);
  if (adds) return [...(adds[1] as string).matchAll(/add\((.+?)\)/g)].map((match) => element(pyStrip(match[1] as string)));
  if (/new\s+ArrayList<\w*>\(\)/.test(input)) return [];
  return input;
}

function javaArray(input: string, nested?: string): PyValue {
  const match = /new\s+\w+\[\]\s*\{(.*?)\}/.exec(input);
  if (!match) return input;
  const parts = (match[1] as string).split(",").map((part) => pyStrip(part)).filter(Boolean);
  return parts.map((part) => (nested ? javaConvert(part, nested) : javaValue(part)));
}

function javaHashMap(input: string): PyValue {
  const dict = new PyDict();
  const match = /new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}/s.exec(input);
  if (match) {
    const puts = match[1] as string;
    if (pyStrip(puts)) {
      for (const put of puts.matchAll(/put\("(.*?)",\s*(.*?)\)/g)) dict.set(put[1] as string, javaValue(pyStrip(put[2] as string)));
    }
    return dict;
  }
  if (/new\s+HashMap<.*?>\s*\(\)/.test(input)) return dict;
  return input;
}

function javaValue(text: string): PyValue {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1);
  if (/^-?\d+[lL]$/.test(text)) return BigInt(text.slice(0, -1));
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(text)) return Number(text.replace(/[fF]$/, ""));
  return pyInt(text) ?? pyFloat(text) ?? text;
}

export function jsConvert(value: string, type: string, nested?: string): PyValue {
  if (!(type in JS_TYPES)) throw new UnsupportedConversionError(`Unsupported type: ${type}`);
  switch (type) {
    case "String":
      if (!(value.startsWith('"') && value.endsWith('"')) && !(value.startsWith("'") && value.endsWith("'"))) return value;
      return value.slice(1, -1);
    case "integer":
      return /^-?\d+$/.test(value) ? BigInt(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    case "Bigint":
      return /^-?\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value;
    case "Boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "dict":
      return jsCollection(value, "dict", nested);
    case "array":
      return jsCollection(value, "array", nested);
    default:
      return value;
  }
}

function jsCollection(input: string, type: "array" | "dict", nested?: string): PyValue {
  const code = pyStrip(input);
  if (type === "array") {
    try {
      const twoD = /^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))/.exec(code);
      if (twoD) {
        return [...twoD[0].matchAll(/\[(.*?)\]/g)].map((match, index) => {
          let inner = pyStrip(match[1] as string);
          if (index === 0 && inner.startsWith("[")) inner = inner.slice(1);
          return inner.split(",").map((part) => jsValue(pyStrip(part)));
        });
      }
      const one = /^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))/.exec(code);
      if (!one) return code;
      const body = one[1] ?? one[2];
      const parts = body !== undefined && pyStrip(body) ? pyStrip(body).split(",") : [];
      if (nested) return parts.map((part) => jsConvert(pyStrip(part), nested));
      return parts.map((part) => jsValue(pyStrip(part)));
    } catch (error) {
      if (error instanceof UnsupportedConversionError) return code;
      throw error;
    }
  }
  if (code === "{}") return new PyDict();
  const match = /^\{(.*?)\}/.exec(code);
  if (!match) return code;
  const dict = new PyDict();
  for (const pair of (match[1] as string).matchAll(/([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)/g)) {
    if (pair[0] === "") continue;
    const key = pyStrip(pyStrip(pair[1] as string), "'\"");
    const value = pyStrip(pair[2] as string);
    if (value.startsWith("[") && value.endsWith("]")) dict.set(key, jsCollection(value, "array"));
    else if (value.startsWith("{") && value.endsWith("}")) dict.set(key, jsCollection(value, "dict"));
    else dict.set(key, jsValue(pyStrip(value, "'\"")));
  }
  return dict;
}

function jsValue(text: string): PyValue {
  const value = pyStrip(text);
  if (value === "true") return true;
  if (value === "false") return false;
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return value.slice(1, -1);
  return pyInt(value) ?? pyFloat(value) ?? value;
}
