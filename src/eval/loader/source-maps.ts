/**
 * The source maps of the compiled eval modules, kept in memory (the temp folder they were
 * written to is gone once the files are imported) and decoded only when a frame needs mapping:
 * a run that throws nothing never parses one.
 */
import type * as TraceMapping from "@jridgewell/trace-mapping";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// The decoder is loaded with the first frame that needs it: a run that throws nothing never does.
let traceMapping: typeof TraceMapping | undefined;
const decoder = (): typeof TraceMapping => (traceMapping ??= createRequire(import.meta.url)("@jridgewell/trace-mapping") as typeof TraceMapping);

/** Source maps of the compiled eval modules, decoded on first use (only a failure needs one). */
const sourceMaps = new Map<string, { text: string; decoded: TraceMapping.TraceMap | undefined }>();

/**
 * A rewritten import specifier in a copy: on `line`, from copy column `after` (1-based, just past
 * the specifier) on, the copy's columns are `by` more than the module it was made from.
 */
export interface ColumnShift {
  line: number;
  after: number;
  by: number;
}

/** Per rewritten copy (by its path), where it moved columns. */
const shifted = new Map<string, readonly ColumnShift[]>();

/**
 * Keeps the map of the compiled module at `file` (an absolute path); `shifts`, when `file` is a
 * rewritten copy of that module, where the copy moved its columns.
 */
export function registerSourceMap(file: string, text: string, shifts: readonly ColumnShift[] = []): void {
  sourceMaps.set(file, { text, decoded: undefined });
  if (shifts.length) shifted.set(file, shifts);
}

/** Eval modules imported from a temp copy (self-imports.ts), by the path their frames name (the copy's, or the eval file's own through its sourceURL): same lines, and columns moved only where their shifts say. */
const moved = new Map<string, string>();

/** Notes that the module at `copy` is the eval file `original`, rewritten in place. */
export function registerMovedModule(copy: string, original: string, shifts: readonly ColumnShift[] = []): void {
  moved.set(copy, original);
  if (shifts.length) shifted.set(copy, shifts);
}

/** A copy's column as the module it was made from has it. */
function unshifted(path: string, line: number, column: number): number {
  let original = column;
  for (const shift of shifted.get(path) ?? []) if (shift.line === line && shift.after <= column) original -= shift.by;
  return original;
}

/**
 * Where a position in a compiled eval module (1-based line and column, as in a stack trace)
 * came from in the eval file, or undefined for any other file.
 */
export function originalPosition(file: string, line: number, column: number): { file: string; line: number; column: number } | undefined {
  const path = file.startsWith("file:") ? fileURLToPath(file) : file;
  const own = unshifted(path, line, column);
  const original = moved.get(path);
  if (original !== undefined) return { file: original, line, column: own };
  const entry = sourceMaps.get(path);
  if (!entry) return undefined;
  const { TraceMap, originalPositionFor } = decoder();
  entry.decoded ??= new TraceMap(entry.text, pathToFileURL(`${path}.map`).href);
  // The segment at or before the column on that line (trace-mapping's default bias).
  const found = originalPositionFor(entry.decoded, { line, column: own - 1 });
  if (found.source === null || found.line === null || found.column === null) return undefined;
  return { file: found.source.startsWith("file:") ? fileURLToPath(found.source) : resolve(found.source), line: found.line, column: found.column + 1 };
}

/** A stack frame's "file:line:column" (a path or a file: URL), optionally in parentheses, at the end of the line. */
const FRAME_POSITION = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/;

/**
 * Where a stack frame points, mapped back to the eval file's own line when the frame is in a
 * compiled eval module; undefined when the frame names no position.
 */
export function framePosition(frame: string): { file: string; line: number; column: number } | undefined {
  const found = FRAME_POSITION.exec(frame);
  if (!found) return undefined;
  const [, where, line, column] = found as unknown as [string, string, string, string];
  const path = where.startsWith("file:") ? fileURLToPath(where) : where;
  return originalPosition(path, Number(line), Number(column)) ?? { file: path, line: Number(line), column: Number(column) };
}
