import type { Script } from "../../contracts/index.js";

/**
 * What ScriptSchema gives back for the commonest script, ordered text answers and nothing else
 * (`{ responses: [{ text: "…" }] }`, with `model` and `allow_unused` if set): the script with
 * its defaults filled in, made without zod. An eval file holds one such script per case, and
 * zod's parse of it (strict objects, defaults, refinements, a result per part) was ~5% of a
 * 1,000-case `eval-test --mock` (measured by taking it out). Undefined for any other value,
 * which zod checks and, when it is wrong, names the problem of.
 *
 * zod reads every key of the schema by name (so an inherited or non-enumerable one counts) and
 * refuses an unknown enumerable one. So does this: the keys it fills in are read by name, every
 * other key of the schema must read as undefined, and every enumerable key must be one it
 * knows. A property test checks that its answer is zod's, key order included.
 */
export function plainScript(value: unknown): Script | undefined {
  if (!plainObject(value)) return undefined;
  for (const key in value) if (key !== "model" && key !== "responses" && key !== "allow_unused") return undefined;
  if ((value as { rules?: unknown }).rules !== undefined) return undefined;
  const { model = "scripted", responses = [], allow_unused = false } = value as { model?: unknown; responses?: unknown; allow_unused?: unknown };
  if (typeof model !== "string" || typeof allow_unused !== "boolean" || !Array.isArray(responses) || Object.getPrototypeOf(responses) !== Array.prototype) return undefined;
  const answers: { text: string }[] = new Array<{ text: string }>(responses.length);
  for (let i = 0; i < responses.length; i++) {
    const entry: unknown = responses[i];
    if (!plainObject(entry)) return undefined;
    for (const key in entry) if (key !== "text") return undefined;
    const { text, tool_calls, stop_reason, usage, error } = entry as Record<string, unknown>;
    if (typeof text !== "string" || tool_calls !== undefined || stop_reason !== undefined || usage !== undefined || error !== undefined) return undefined;
    answers[i] = { text };
  }
  return { model, responses: answers, rules: [], allow_unused };
}

function plainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
