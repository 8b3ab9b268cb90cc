import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { EvalDefinitionError, RetraceError, UsageError } from "../../errors/index.js";
import type { RunStore } from "../../journal/index.js";
import { ConsoleReporter } from "../../eval/report/console.js";
import { renderJunit } from "../../eval/report/junit.js";
import { renderMarkdown } from "../../eval/report/markdown.js";
import { readReport } from "../../eval/report/read.js";
import type { EvalReport } from "../../eval/report/schema.js";
import { parseShard, runEvalSuite } from "../../eval/suite.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import { processIO, type CliIO } from "../io.js";

export const evalTestHelp = `retrace eval-test [paths...] [--mock | --live] [options]     (alias: retrace eval)

Runs the eval cases (defineEval) in *.eval.ts / *.eval.js files under the paths (default: eval/).

Modes:
  --mock                 scripted models only (the default): no key, no network (a request fails the
                         case), nothing written outside each case's temp dir
  --live                 the configured providers (API keys needed)

Selecting:
  --tags <a,b>           cases with any of these tags; "!tag" excludes (repeatable)
  -t <pattern>           cases whose name matches the regular expression
  --shard <i/n>          the i-th of n equal shares of the selected cases (merge with retrace merge-reports)

Running:
  --concurrency <n>      cases in flight at once (default: the number of cores, ${availableParallelism()}, under --live;
                         at least 16 under --mock, where cases interleave in one thread)
  --timeout <ms>         per-case timeout for cases that set none (default 30000)
  --repeat <n>           run each case n times: pass rate per case, flaky cases listed
  --bail [n]             stop starting cases after n failures (default 1)
  --threshold <0..1>     least score a case needs, for cases that set none (default 0)
  --db <path>            keep --live runs in this SQLite store (default: in memory)

Reporting:
  --reporter <r>         console (always on unless another reporter writes to stdout),
                         json[=<file>], junit[=<file>], markdown[=<file>]; repeatable
  --baseline <file>      a previous JSON report: list regressions, fixes and score changes

Exit codes: 0 all cases passed, 1 a case failed, 2 a file, config or option could not be loaded.
`;

interface ReporterTarget {
  kind: "console" | "json" | "junit" | "markdown";
  file: string | undefined;
}

function parseReporters(values: readonly string[], cwd: string): ReporterTarget[] {
  return values.map((value) => {
    const [kind, ...rest] = value.split("=");
    const file = rest.length ? rest.join("=") : undefined;
    if (kind !== "console" && kind !== "json" && kind !== "junit" && kind !== "markdown") {
      throw new UsageError(`eval-test: unknown reporter "${kind}"; choose console, json[=<file>], junit[=<file>] or markdown[=<file>]`);
    }
    if (kind === "console" && file) throw new UsageError("eval-test: the console reporter writes to the terminal; it takes no file");
    if (file === "") throw new UsageError(`eval-test: --reporter ${kind}= needs a file name`);
    return { kind, file: file === undefined ? undefined : resolve(cwd, file) };
  });
}

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw new UsageError(`eval-test: ${name} must be a ${allowZero ? "non-negative" : "positive"} integer, got "${text}"`);
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
    reporter: { type: "string", multiple: true },
    baseline: { type: "string" },
  });
  if (values.mock && values.live) throw new UsageError("eval-test: choose --mock or --live, not both");
  const mode = values.live ? "live" : "mock";
  if (mode === "mock" && values.db) throw new UsageError("eval-test: --db keeps --live runs; --mock runs are never written");
  const threshold = values.threshold === undefined ? undefined : Number(values.threshold);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new UsageError(`eval-test: --threshold must be a number from 0 to 1, got "${values.threshold}"`);
  const reporters = parseReporters(values.reporter ?? [], io.cwd);
  const shard = values.shard === undefined ? undefined : parseShardOption(values.shard);
  const concurrency = positiveInteger("--concurrency", values.concurrency);
  const timeoutMs = positiveInteger("--timeout", values.timeout);
  const repeat = positiveInteger("--repeat", values.repeat);
  const bail = positiveInteger("--bail", values.bail, true);
  const baseline = values.baseline === undefined ? undefined : { file: values.baseline, report: readReport(resolve(io.cwd, values.baseline)) };

  // A reporter without a file writes to stdout, and then the console reporter steps aside.
  const stdoutTaken = reporters.some((reporter) => reporter.kind !== "console" && reporter.file === undefined);
  const consoleReporter = stdoutTaken
    ? undefined
    : new ConsoleReporter({ write: (text) => io.stdout(text), isTTY: io.isTTY, color: io.isTTY && !io.env.NO_COLOR });

  let store: (RunStore & { close(): void }) | undefined;
  if (values.db) {
    const { SqliteRunStore } = await import("../../journal/sqlite-store.js");
    store = new SqliteRunStore(resolve(io.cwd, values.db));
  }
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
      ...(baseline ? { baseline } : {}),
      ...(consoleReporter
        ? {
            onFileLoaded: (file, planned) => consoleReporter.fileLoaded(file, planned),
            onCaseDone: (result, done) => consoleReporter.caseDone(result, done),
          }
        : {}),
    });
  } finally {
    store?.close();
  }
  consoleReporter?.finish(report);
  writeReports(report, reporters, io);
  if (io === processIO) {
    // A case that timed out may have left its body running (a timer, a socket under --live).
    // The suite is over: if such leftovers keep the process alive, end it with the suite's code.
    setTimeout(() => process.exit(report.summary.exitCode), 250).unref();
  }
  return report.summary.exitCode;
}

function parseShardOption(text: string) {
  try {
    return parseShard(text);
  } catch (error) {
    if (error instanceof EvalDefinitionError) throw new UsageError(`eval-test: ${error.message}`);
    throw error;
  }
}

export function renderReport(report: EvalReport, kind: "json" | "junit" | "markdown"): string {
  if (kind === "json") return `${JSON.stringify(report, null, 2)}\n`;
  if (kind === "junit") return renderJunit(report);
  return renderMarkdown(report);
}

export function writeReports(report: EvalReport, reporters: readonly ReporterTarget[], io: CliIO): void {
  for (const reporter of reporters) {
    if (reporter.kind === "console") continue;
    const text = renderReport(report, reporter.kind);
    if (reporter.file === undefined) {
      io.stdout(text);
      continue;
    }
    try {
      mkdirSync(dirname(reporter.file), { recursive: true });
      writeFileSync(reporter.file, text);
    } catch (error) {
      throw new RetraceError("report_write", `cannot write the ${reporter.kind} report: ${(error as Error).message}`, { file: reporter.file });
    }
  }
}

export { parseReporters, type ReporterTarget };
