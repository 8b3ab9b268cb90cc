/** Reads a JSON eval report back (for --baseline and merge-reports), refusing anything else. */
import { readFileSync } from "node:fs";
import { ReportFormatError } from "../../errors/index.js";
import { EvalReportSchema, REPORT_FORMAT, REPORT_VERSION, type EvalReport } from "./schema.js";

export function parseReport(text: string, file: string): EvalReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ReportFormatError(`not JSON: ${(error as Error).message}`, { file });
  }
  const format = (value as { format?: unknown; version?: unknown } | null)?.format;
  const version = (value as { version?: unknown } | null)?.version;
  if (format !== REPORT_FORMAT) throw new ReportFormatError(`not a Retrace eval report (write one with --reporter json=<file>)`, { file });
  if (version !== REPORT_VERSION) {
    throw new ReportFormatError(`report format version ${String(version)}; this Retrace reads version ${REPORT_VERSION}`, { file });
  }
  const result = EvalReportSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ReportFormatError(`invalid report at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "does not match the schema"}`, { file });
  }
  return result.data;
}

export function readReport(file: string): EvalReport {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportFormatError(code === "ENOENT" ? "report not found" : `cannot read the report: ${(error as Error).message}`, { file });
  }
  return parseReport(text, file);
}
