import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { EvalDefinitionError, UsageError } from "../../errors/index.js";
import type { RunStore } from "../../contracts/index.js";
import { ConsoleReporter, type ConsoleTarget } from "../../eval/report/console.js";
import { renderJunit } from "../../eval/report/junit.js";
import { renderMarkdown } from "../../eval/report/markdown.js";
import { readReport } from "../../eval/report/read.js";
import type { EvalReport } from "../../eval/report/schema.js";
import { withReportErrors } from "../../eval/report/summary.js";
import { NetworkGuard, parseShard, runEvalSuite, suiteScope, watchUncaught, type SuiteScope } from "../../eval/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import { processIO, type CliIO } from "../io.js";
import { cassetteSecrets, parseCassetteMode, parseTiming } from "../cassette.js";
import type { CassetteMode } from "../../cassette/index.js";

export const evalTestHelp = `retrace eval-test [paths...] [--mock | --live] [options]     (alias: retrace eval)

Runs the eval cases (defineEval) in *.eval.ts / *.eval.js files under the paths (default: eval/).

Modes:
  --mock                 scripted models only (the default): no key, no network (a request fails the
                         case); runs kept in memory, and Retrace's file tools write only to each
                         case's temp copy of the workspace (your own code in a case is not sandboxed)
  --live                 the configured providers (API keys needed)
  --record               --live, and record each case's HTTP traffic (its LLM judge's too) to a
                         cassette beside its eval file: __cassettes__/<file>/<case>.json (file without .ts)
  --replay               answer each case from its cassette: no key, and the network refused as
                         under --mock; a case with no cassette fails and says how to record it
  --cassette-mode <m>    with --live: record, auto (replay what is recorded, record the rest),
                         replay or update (re-record, dropping entries no longer used)
  --timing <t>           replayed streams: instant (default), recorded, or a factor (0.5)

Selecting:
  --tags <a,b>           cases with any of these tags; "!tag" excludes (repeatable)
  -t <pattern>           cases whose name matches the regular expression
  --shard <i/n>          the i-th of n equal shares of the selected cases (merge with retrace merge-reports)

Running:
  --concurrency <n>      cases in flight at once (default: the number of cores, ${availableParallelism()}, under --live;
                         at least 16 under --mock, where cases interleave in one thread; 1 with --bail)
  --timeout <ms>         per-case timeout (turns, body and scoring) for cases that set none,
                         and for loading each eval file (default 30000)
  --repeat <n>           run each case n times: pass rate per case, flaky cases listed
  --bail [n]             stop after n failed cases (default 1); the cases not run are reported
                         skipped. Under --mock it runs cases one at a time, in order, so the same
                         cases are skipped every time; under --live cases already running finish
  --threshold <0..1>     least score a case needs, for cases that set none (default 0)
  --db <path>            keep --live runs in this SQLite store (default: in memory)
  --keep-runs <file.db>  under --mock: write every case's runs (its judges' and sub-agents' too)
                         to this SQLite store, replacing the runs an earlier eval kept there, so
                         retrace trace <runId> --db <file.db> shows the run a failure names

Reporting:
  --reporter <r>         console (always on unless another reporter writes to stdout),
                         json[=<file>], junit[=<file>], markdown[=<file>], html=<file>; repeatable;
                         at most one may write to stdout (no file). html: one self-contained page,
                         with a timeline page per case run in <file>.runs/ when runs are kept
  --baseline <file>      a previous JSON report: list regressions, fixes and score changes
                         among the cases this run selected (merge shards, then compare with
                         retrace merge-reports --baseline)

Exit codes: 0 all cases passed, 1 a case failed, 2 a file, config or option could not be loaded.
`;

interface ReporterTarget {
  kind: "console" | "json" | "junit" | "markdown" | "html";
  file: string | undefined;
}

function parseReporters(values: readonly string[], cwd: string, command = "eval-test"): ReporterTarget[] {
  const targets = values.map((value): ReporterTarget => {
    const [kind, ...rest] = value.split("=");
    const file = rest.length ? rest.join("=") : undefined;
    if (kind !== "console" && kind !== "json" && kind !== "junit" && kind !== "markdown" && kind !== "html") {
      throw new UsageError(`${command}: unknown reporter "${kind}"; choose console, json[=<file>], junit[=<file>], markdown[=<file>] or html=<file>`);
    }
    // The page links a timeline page per run, written beside it: it needs a place, not a pipe.
    if (kind === "html" && file === undefined) throw new UsageError(`${command}: the html reporter writes a file and its runs' timelines beside it; give it one, e.g. --reporter html=report.html`);
    if (kind === "console" && file) throw new UsageError(`${command}: the console reporter writes to the terminal; it takes no file`);
    if (file === "") throw new UsageError(`${command}: --reporter ${kind}= needs a file name`);
    return { kind, file: file === undefined ? undefined : resolve(cwd, file) };
  });
  const toStdout = targets.filter(writesToStdout);
  if (toStdout.length > 1) {
    throw new UsageError(
      `${command}: ${toStdout.map((target) => target.kind).join(" and ")} would both write to stdout; give all but one a file, e.g. --reporter ${toStdout[1]?.kind}=results.${toStdout[1]?.kind === "markdown" ? "md" : toStdout[1]?.kind === "junit" ? "xml" : "json"}`,
    );
  }
  return targets;
}

/** A reporter other than the console's, given no file: it writes to stdout, and the console reporter steps aside. */
function writesToStdout(target: ReporterTarget): target is ReporterTarget & { kind: "json" | "junit" | "markdown"; file: undefined } {
  return target.kind !== "console" && target.kind !== "html" && target.file === undefined;
}

/** The console reporter's terminal: colour only on a TTY, and not under NO_COLOR. */
function consoleTarget(io: CliIO): ConsoleTarget {
  return { write: (text) => io.stdout(text), isTTY: io.isTTY, color: io.isTTY && !io.env.NO_COLOR };
}

/** `--baseline <file>`: the report, read now, so a bad file fails before any case runs. */
function readBaseline(file: string | undefined, cwd: string): { file: string; report: EvalReport } | undefined {
  return file === undefined ? undefined : { file, report: readReport(resolve(cwd, file)) };
}

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  // Digits only: Number() would also take "", " ", "0x10" and "1e3".
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) throw new UsageError(`eval-test: ${name} must be a ${allowZero ? "non-negative" : "positive"} integer, got "${text}"`);
  return value;
}

/** A decimal from 0 to 1 ("0.8", "1", ".5"); Number() would also take "", "0x1" and "1e-1". */
function parseThreshold(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 1)) throw new UsageError(`eval-test: --threshold must be a number from 0 to 1, got "${text}"`);
  return value;
}

/** `--bail` alone means 1; node:util's parseArgs has no optional values, so give it one. */
function normaliseBail(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--bail" && !/^\d+$/.test(argv[i + 1] ?? "")) out.push("--bail=1");
    else out.push(arg);
  }
  return out;
}

export async function evalTestCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("eval-test", normaliseBail(argv), {
    mock: { type: "boolean", default: false },
    live: { type: "boolean", default: false },
    tags: { type: "string", multiple: true },
    t: { type: "string" },
    shard: { type: "string" },
    concurrency: { type: "string" },
    timeout: { type: "string" },
    repeat: { type: "string" },
    bail: { type: "string" },
    threshold: { type: "string" },
    db: { type: "string" },
    "keep-runs": { type: "string" },
    reporter: { type: "string", multiple: true },
    baseline: { type: "string" },
    record: { type: "boolean", default: false },
    replay: { type: "boolean", default: false },
    "cassette-mode": { type: "string" },
    timing: { type: "string" },
  });
  if (values.mock && values.live) throw new UsageError("eval-test: choose --mock or --live, not both");
  const cassetteMode = evalCassetteMode(values);
  const mode = values.live || cassetteMode !== undefined ? "live" : "mock";
  if (mode === "mock" && values.db) {
    throw new UsageError("eval-test: --db keeps --live runs; to keep --mock runs for retrace trace, use --keep-runs <file.db>");
  }
  if (mode === "live" && values["keep-runs"] !== undefined) throw new UsageError("eval-test: --keep-runs keeps --mock runs; under --live use --db <path>");
  const threshold = parseThreshold(values.threshold);
  const reporters = parseReporters(values.reporter ?? [], io.cwd);
  const shard = values.shard === undefined ? undefined : parseShardOption(values.shard);
  const concurrency = positiveInteger("--concurrency", values.concurrency);
  const timeoutMs = positiveInteger("--timeout", values.timeout);
  const repeat = positiveInteger("--repeat", values.repeat);
  const bail = positiveInteger("--bail", values.bail, true);
  const baseline = readBaseline(values.baseline, io.cwd);
  const timing = parseTiming("eval-test", values.timing);
  if (timing !== undefined && cassetteMode === undefined) throw new UsageError("eval-test: --timing paces replayed cassettes: add --replay (or --cassette-mode)");
  const cassettes =
    cassetteMode === undefined || cassetteMode === "live"
      ? undefined
      : (await import("../../eval/cassettes.js")).caseCassettes({ mode: cassetteMode, ...(timing !== undefined ? { timing } : {}), secrets: cassetteSecrets(undefined, io.env) });
  const offline = cassetteMode === "replay";

  // A reporter without a file writes to stdout, and then the console reporter steps aside.
  const consoleReporter = reporters.some(writesToStdout) ? undefined : new ConsoleReporter(consoleTarget(io));

  let store: (RunStore & { close(): void }) | undefined;
  if (values.db) {
    const { SqliteRunStore } = await import("../../store/sqlite-store.js");
    store = new SqliteRunStore(resolve(io.cwd, values.db));
  }
  let keep: (RunStore & { close(): void }) | undefined;
  if (values["keep-runs"] !== undefined) keep = await openKeptStore(io.cwd, values["keep-runs"]);
  const runStore = values["keep-runs"] ?? values.db;
  // The html reporter links every case to its run's timeline: with no store named, it keeps
  // the runs in memory until its pages are written (the cost --keep-runs would have on disk).
  const pageRuns = runStore === undefined && reporters.some((reporter) => reporter.kind === "html") ? new (await import("../../store/memory-store.js")).MemoryRunStore() : undefined;
  if (pageRuns && mode === "mock") keep = pageRuns;
  if (pageRuns && mode === "live") store = pageRuns;
  // The suite's scope, kept by this process to its end: under --mock the network stays refused
  // after the suite (a case's leftover timer gets nothing in the moments before the process
  // exits), and an error thrown then cannot change the exit code the report gave.
  const scope = io === processIO ? suiteScope(mode === "mock" || offline) : undefined;
  if (scope) holdUntilExit(scope, io);
  consoleReporter?.start(mode);
  let report: EvalReport;
  try {
    report = await runEvalSuite({
      paths: positionals.length ? positionals : ["eval"],
      cwd: io.cwd,
      mode,
      env: io.env,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(repeat !== undefined ? { repeat } : {}),
      ...(bail !== undefined ? { bail } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
      ...(values.tags ? { tags: values.tags } : {}),
      ...(values.t !== undefined ? { pattern: values.t } : {}),
      ...(shard ? { shard } : {}),
      ...(store ? { store } : {}),
      ...(keep ? { keep } : {}),
      ...(runStore !== undefined ? { runStore } : {}),
      ...(baseline ? { baseline } : {}),
      ...(scope ? { scope } : {}),
      ...(cassettes ? { cassettes } : {}),
      ...(offline ? { offline } : {}),
      ...(consoleReporter
        ? {
            onFileLoaded: (file, planned) => consoleReporter.fileLoaded(file, planned),
            onCaseDone: (result, done) => consoleReporter.caseDone(result, done),
          }
        : {}),
    });
  } finally {
    if (store !== pageRuns) store?.close();
    if (keep !== pageRuns) keep?.close();
  }
  // Files first: one that cannot be written is an error of the report, which the console's
  // verdict and the exit code then include.
  report = await writeFileReports(report, reporters, { cwd: io.cwd, env: io.env, runs: pageRuns });
  consoleReporter?.finish(report);
  writeStdoutReports(report, reporters, io);
  if (scope) reportedSoFar.set(scope, { stray: scope.stray.length, errors: scope.errors.length });
  if (io === processIO) {
    // A case that timed out may have left its body running (a timer, a socket under --live).
    // The suite is over: if such leftovers keep the process alive, end it with the suite's code.
    setTimeout(() => process.exit(report.summary.exitCode), 250).unref();
  }
  return report.summary.exitCode;
}

/** --record, --replay and --cassette-mode as one cassette mode; undefined without cassettes. */
function evalCassetteMode(values: { mock: boolean; record: boolean; replay: boolean; "cassette-mode"?: string | undefined }): CassetteMode | undefined {
  const given = [values.record && "--record", values.replay && "--replay", values["cassette-mode"] !== undefined && "--cassette-mode"].filter(Boolean);
  if (given.length > 1) throw new UsageError(`eval-test: choose one of ${given.join(", ")}`);
  if (given.length && values.mock) throw new UsageError(`eval-test: ${given[0]} works with the configured providers; --mock answers from scripts (drop one of them)`);
  if (values.record) return "record";
  if (values.replay) return "replay";
  return values["cassette-mode"] === undefined ? undefined : parseCassetteMode("eval-test", values["cassette-mode"]);
}

/**
 * The --keep-runs store, empty: the cases' run ids are derived from the cases, so the runs of
 * an earlier eval kept in the same file would collide with this one's. A file that is not a
 * Retrace run store is refused untouched; one that is, is replaced.
 */
async function openKeptStore(cwd: string, file: string): Promise<RunStore & { close(): void }> {
  if (file === "") throw new UsageError("eval-test: --keep-runs needs a file name, e.g. --keep-runs eval-runs.db");
  const { openStore } = await import("../store.js");
  const path = resolve(cwd, file);
  if (existsSync(path)) {
    // Checked as a run store (a folder, a foreign file or another program's database is refused) before it is removed.
    openStore(cwd, file, undefined, { mustExist: true }).close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  }
  mkdirSync(dirname(path), { recursive: true });
  return openStore(cwd, file);
}

function parseShardOption(text: string) {
  try {
    return parseShard(text);
  } catch (error) {
    if (error instanceof EvalDefinitionError) throw new UsageError(`eval-test: ${error.message}`);
    throw error;
  }
}

function renderReport(report: EvalReport, kind: "json" | "junit" | "markdown"): string {
  if (kind === "json") return `${JSON.stringify(report, null, 2)}\n`;
  if (kind === "junit") return renderJunit(report);
  return renderMarkdown(report);
}

/**
 * Writes the reporters that have a file. One that cannot be written becomes an error of the
 * report (exit code 2); the files that were written are written again to carry it, so every
 * file, the console and the exit code agree. `context` is where the html reporter finds the
 * report's run store (relative to cwd) and the keys to scrub.
 */
export async function writeFileReports(
  report: EvalReport,
  reporters: readonly ReporterTarget[],
  context: Pick<CliIO, "cwd" | "env"> & { runs?: RunStore | undefined },
): Promise<EvalReport> {
  const targets = reporters.filter((reporter): reporter is FileTarget => reporter.kind !== "console" && reporter.file !== undefined);
  // Loaded only when asked for: it reads the run store, and SQLite is not free to load.
  const html = targets.some((target) => target.kind === "html") ? await import("../html-pages.js") : undefined;
  const writeReportFile = (data: EvalReport, target: FileTarget) => {
    if (target.kind === "html") html?.writeHtmlReport(data, target.file, context);
    else writeTextReport(data, { kind: target.kind, file: target.file });
  };
  const written: typeof targets = [];
  const failures: { code: string; message: string }[] = [];
  for (const target of targets) {
    try {
      writeReportFile(report, target);
      written.push(target);
    } catch (error) {
      failures.push({ code: "report_write", message: `cannot write the ${target.kind} report to ${target.file}: ${(error as Error).message}` });
    }
  }
  if (failures.length === 0) return report;
  const updated = withReportErrors(report, failures);
  for (const target of written) {
    try {
      writeReportFile(updated, target);
    } catch {
      // It was writable a moment ago; the report already says what went wrong.
    }
  }
  return updated;
}

type FileTarget = ReporterTarget & { kind: "json" | "junit" | "markdown" | "html"; file: string };

function writeTextReport(report: EvalReport, target: { kind: "json" | "junit" | "markdown"; file: string }): void {
  mkdirSync(dirname(target.file), { recursive: true });
  writeFileSync(target.file, renderReport(report, target.kind));
}

/** Writes the (at most one) reporter without a file to stdout. */
export function writeStdoutReports(report: EvalReport, reporters: readonly ReporterTarget[], io: CliIO): void {
  for (const reporter of reporters) {
    if (writesToStdout(reporter)) io.stdout(renderReport(report, reporter.kind));
  }
}

/** What of a held scope the report already shows; anything after it is told on stderr at exit. */
const reportedSoFar = new WeakMap<SuiteScope, { stray: number; errors: number }>();

/**
 * Keeps, for the rest of the process: the network guard (under --mock), and the watch on
 * uncaught errors. What either catches after the report was made cannot change the exit code
 * the report gave; it is told on stderr as the process exits.
 */
function holdUntilExit(scope: SuiteScope, io: CliIO): void {
  if (scope.guarded) new NetworkGuard(scope).install();
  watchUncaught(scope);
  process.once("exit", () => {
    const seen = reportedSoFar.get(scope);
    if (!seen) return;
    const late = [
      ...scope.stray.slice(seen.stray).map((target) => `network request under --mock refused after the report was made: ${target}`),
      ...scope.errors.slice(seen.errors).map((error) => `after the report was made: ${error}`),
    ];
    for (const line of late) io.stderr(`warning: ${line}\n`);
  });
}

export { parseReporters, writesToStdout, consoleTarget, readBaseline, type ReporterTarget };
