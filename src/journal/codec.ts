import { canonicalJson } from "../canonical/index.js";
import { EventFormatError, type ErrorPlace } from "../errors/index.js";
import { RunEventSchema, type RunEvent } from "../contracts/index.js";

export function serializeEvent(event: RunEvent): string {
  return canonicalJson(event);
}

/** Validates one stored event; the error names the run, the seq and the first bad field. */
export function parseEvent(input: string | unknown, place: ErrorPlace = {}): RunEvent {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new EventFormatError(`not valid JSON: ${(error as Error).message}`, place);
    }
  }
  const result = RunEventSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue ? issue.path.join(".") : "";
    throw new EventFormatError(`invalid event${path ? ` at ${path}` : ""}: ${issue?.message ?? "unknown problem"}`, place);
  }
  return result.data;
}
