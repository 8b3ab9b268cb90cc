/**
 * One error style for all of Retrace: a stable machine-readable `code`, a message a user can
 * act on, and the place the problem was found (file, config path, run and seq, bundle entry).
 */
export interface ErrorPlace {
  file?: string;
  /** 1-based line in `file` (a data file's row). */
  line?: number;
  path?: string;
  runId?: string;
  seq?: number;
  entry?: string;
  callId?: string;
}

export class RetraceError extends Error {
  readonly code: string;
  readonly place: ErrorPlace;

  constructor(code: string, message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.place = place;
  }

  /** The message with its place, as a CLI prints it. */
  describe(): string {
    const where = describePlace(this.place);
    return where ? `${where}: ${this.message}` : this.message;
  }

  toJSON(): { code: string; message: string; place: ErrorPlace } {
    return { code: this.code, message: this.message, place: this.place };
  }
}

export function describePlace(place: ErrorPlace): string {
  const parts: string[] = [];
  if (place.file) parts.push(place.line !== undefined ? `${place.file}:${place.line}` : place.file);
  if (place.path) parts.push(place.path);
  if (place.runId) parts.push(`run ${place.runId}`);
  if (place.seq !== undefined) parts.push(`seq ${place.seq}`);
  if (place.callId) parts.push(`call ${place.callId}`);
  if (place.entry) parts.push(`entry ${place.entry}`);
  return parts.join(" ");
}

/** A value that canonical JSON cannot carry without changing it (NaN, BigInt, a cycle, ...). */
export class CanonicalJsonError extends RetraceError {
  constructor(message: string, path: string) {
    super("canonical_json", message, { path });
  }
}

/** Config file problems: unreadable, malformed YAML, a schema violation, an unknown key. */
export class ConfigError extends RetraceError {
  constructor(message: string, place: ErrorPlace) {
    super("config_invalid", message, place);
  }
}

/** Another writer appended to the run first, or the caller skipped a seq. */
export class SeqConflictError extends RetraceError {
  readonly expected: number;
  readonly actual: number;
  constructor(runId: string, expected: number, actual: number) {
    super(
      "seq_conflict",
      `cannot append seq ${expected}: the run's log ends at seq ${actual}` +
        (expected <= actual ? " (another writer appended first)" : " (that would leave a gap)"),
      { runId, seq: expected },
    );
    this.expected = expected;
    this.actual = actual;
  }
}

export class StoreError extends RetraceError {
  constructor(code: "store_version" | "store_corrupt" | "store_open" | "store_foreign" | "store_readonly" | "run_not_found" | "lease_lost", message: string, place: ErrorPlace = {}) {
    super(code, message, place);
  }
}

/** Another live process drives the run (it holds the run's lease). */
export class RunBusyError extends RetraceError {
  readonly holder: { pid: number; host: string; since: string };
  constructor(holder: { runId: string; pid: number; host: string; since: string }) {
    super("run_busy", `run ${holder.runId} is being executed by process ${holder.pid} on ${holder.host} since ${holder.since}`, { runId: holder.runId });
    this.holder = { pid: holder.pid, host: holder.host, since: holder.since };
  }
}

/** A run's hash chain does not hold: a row was edited, deleted, swapped or inserted by hand. */
export class TamperedLogError extends RetraceError {
  constructor(runId: string, seq: number, problem: string, file?: string) {
    super("log_tampered", `${problem}; the log cannot be trusted, so it is not continued or exported`, { ...(file ? { file } : {}), runId, seq });
  }
}

/** A scripted model was asked for more responses than its script holds. */
export class ScriptExhaustedError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("script_exhausted", message, place);
  }
}

export type ProviderErrorKind =
  | "auth"
  | "not_found"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "timeout"
  | "connection"
  | "invalid_response"
  | "missing_key"
  | "script_exhausted";

/** A model provider failed; `retryable` says whether the agent may try again. */
export class ProviderError extends RetraceError {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly provider: string;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    details: { provider: string; status?: number; retryAfterMs?: number; cause?: unknown },
  ) {
    super(`provider_${kind}`, message, {}, { cause: details.cause });
    this.kind = kind;
    this.provider = details.provider;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }

  get retryable(): boolean {
    return this.kind === "rate_limited" || this.kind === "server" || this.kind === "timeout" || this.kind === "connection";
  }
}

export class UsageError extends RetraceError {
  constructor(message: string) {
    super("usage", message);
  }
}

export class RunError extends RetraceError {
  constructor(code: string, message: string, place: ErrorPlace = {}) {
    super(code, message, place);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof RetraceError) return error.describe();
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A stored or loaded event does not match the event schema. */
export class EventFormatError extends RetraceError {
  constructor(message: string, place: ErrorPlace) {
    super("event_invalid", message, place);
  }
}

// Built-in tools. The agent records a thrown error as `tool.failed`, so each message is
// written for the model (and the engineer reading the log) to act on.

/** A calculator expression that cannot be parsed or has no finite value. */
export class ExpressionError extends RetraceError {
  /** 1-based character position in the expression, as the message shows it. */
  readonly position: number;

  /** Reads as "<subject> at position <n><rest>", e.g. `unexpected ")" at position 4, expected a number`. */
  constructor(subject: string, position: number, rest = "") {
    super("expression_invalid", `${subject} at position ${position}${rest}`);
    this.position = position;
  }
}

/** A path that would leave the workspace folder: `..`, an outside absolute path, a symlink, a NUL byte. */
export class WorkspaceEscapeError extends RetraceError {
  constructor(path: string, reason: string) {
    super("workspace_escape", `path ${JSON.stringify(path)} ${reason}; tools may only touch files inside the workspace`, { path });
  }
}

export type FileToolErrorCode = "file_not_found" | "not_a_file" | "not_a_directory" | "file_too_large" | "file_not_text";

export class FileToolError extends RetraceError {
  constructor(code: FileToolErrorCode, message: string, path: string) {
    super(code, message, { path });
  }
}

/** A built-in tool that does not exist, or was asked for without what it needs. */
export class BuiltinToolError extends RetraceError {
  constructor(code: "tool_unknown" | "tool_config", message: string) {
    super(code, message);
  }
}

/** A document retrieval cannot read: bad front matter, a JSON Lines record without its text field. */
export class DocumentError extends RetraceError {
  constructor(message: string, place: ErrorPlace) {
    super("document_invalid", message, place);
  }
}

/** An eval case or eval option is malformed (`defineEval`, a tool mock, a matcher, a CLI value). */
export class EvalDefinitionError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("eval_invalid", message, place);
  }
}

/** An eval file could not be loaded (a syntax error, a throw at import, no cases). */
export class EvalLoadError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}, options?: { cause?: unknown }) {
    super("eval_load", message, place, options);
  }
}

/** Under `--mock` something tried to reach the network; the case that did it fails. */
export class NetworkBlockedError extends RetraceError {
  readonly target: string;
  constructor(target: string, place: ErrorPlace = {}) {
    super("network_blocked", `network request to ${target} under --mock: mock runs never touch the network (mock the tool, or run with --live)`, place);
    this.target = target;
  }
}

/** A scorer name that no scorer registered. */
export class UnknownScorerError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("scorer_unknown", message, place);
  }
}

/** An eval report (JSON) that does not match the report schema, or reports that cannot be merged. */
export class ReportFormatError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("report_invalid", message, place);
  }
}

export type BundleErrorCode =
  /** The bundle file cannot be opened: it does not exist, or this process may not read it. */
  | "bundle_unreadable"
  /** Not a gzip tarball, or one that ends early or has data after its end. */
  | "bundle_malformed"
  /** An entry name that is absolute, climbs with `..`, names a drive, or holds odd characters. */
  | "bundle_path"
  /** A link, device, FIFO or folder where only regular files belong. */
  | "bundle_entry_type"
  | "bundle_duplicate"
  /** An entry, the total, or the number of entries over its limit (a gzip bomb stops here). */
  | "bundle_too_large"
  | "bundle_version"
  /** The manifest disagrees with the content: a checksum, a size, a missing or extra entry, a run. */
  | "bundle_mismatch"
  /** JSON that is malformed or nested too deep, or events that are not a valid log. */
  | "bundle_content"
  /** Capture found a known secret in what it would write. */
  | "bundle_secret";

/** A bundle that cannot be captured or loaded; `place.entry` names the entry at fault. */
export class BundleError extends RetraceError {
  constructor(code: BundleErrorCode, message: string, place: ErrorPlace = {}) {
    super(code, message, place);
  }
}

// Cassettes (src/cassette/): recorded HTTP exchanges served back to the SDKs.

/**
 * A cassette file that cannot be used: not JSON, not the format, a version this Retrace does not
 * know, truncated, or (on write) still holding a secret. `place.file` names the file and
 * `place.entry` the entry, as `entries[3]`.
 */
export class CassetteError extends RetraceError {
  constructor(code: "cassette_invalid" | "cassette_version" | "cassette_secret" | "cassette_missing" | "cassette_io", message: string, place: ErrorPlace = {}) {
    super(code, message, place);
  }
}

/**
 * In `replay` a request the cassette does not hold. The message names the request, the nearest
 * recorded request of the same endpoint and what differs between the two.
 */
export class CassetteMissError extends RetraceError {
  /** The missed request's key and ordinal (0-based among identical requests). */
  readonly key: string;
  readonly ordinal: number;
  /** The nearest recorded entry of the same endpoint, as `entries[3]`, if there is one. */
  readonly nearest: string | undefined;
  /** The readable differences from that entry, one line each. */
  readonly differences: readonly string[];
  constructor(message: string, details: { file?: string; key: string; ordinal: number; nearest?: string; differences?: readonly string[] }) {
    super("cassette_miss", message, { ...(details.file ? { file: details.file } : {}), ...(details.nearest ? { entry: details.nearest } : {}) });
    this.key = details.key;
    this.ordinal = details.ordinal;
    this.nearest = details.nearest;
    this.differences = details.differences ?? [];
  }
}

/** A benchmark data file (or a row of one) that cannot be used: missing, malformed, inconsistent. */
export class BenchmarkDataError extends RetraceError {
  constructor(message: string, place: ErrorPlace = {}) {
    super("benchmark_data", message, place);
  }
}
