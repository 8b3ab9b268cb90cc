import { pyJsonLoads } from "./python/json.js";
import type { PyDict, PyValue } from "./python/value.js";
import { pyAnswers } from "./schema.js";

/** A ground truth given as JSON text (exact) or as a value already read. */
export function pyAnswersOf(truth: string | PyValue): PyDict[] {
  return pyAnswers(typeof truth === "string" ? pyJsonLoads(truth) : truth, "the expected entry");
}
