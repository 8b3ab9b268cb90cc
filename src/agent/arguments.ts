import { canonicalJson } from "../canonical/index.js";

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The model's argument text as a value the log can hold. Text that is not JSON, or JSON the log
 * cannot store (`1e400` parses to Infinity), stays raw text in `tool.requested`, and the call
 * fails with the problem instead of wedging the run at an append that can never succeed.
 */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, problem: "arguments are not valid JSON" };
  }
  try {
    canonicalJson(value);
  } catch (error) {
    return { ok: false, problem: `arguments hold a value the log cannot store (${(error as Error).message})` };
  }
  return { ok: true, value };
}
