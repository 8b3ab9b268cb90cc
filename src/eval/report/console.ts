/**
 * The console reporter. On a terminal it keeps a progress bar on the last line; everywhere it
 * prints one line per eval file as the file's cases finish, then, for each case that did not
 * pass, which assertion or scorer failed and why, and a summary whose verdict is the exit code.
 */
import type { LoadedFile } from "../loader/index.js";
import { failureLines, formatScore, formatSeconds } from "./describe.js";
import type { CaseResult, EvalReport } from "./schema.js";
import { shellWord } from "../../text/index.js";

export interface ConsoleTarget {
  write(text: string): void;
  isTTY: boolean;
  color: boolean;
}

const PROGRESS_INTERVAL_MS = 80;

export class ConsoleReporter {
  readonly #out: ConsoleTarget;
  readonly #pending = new Map<string, { total: number; done: number; failed: number }>();
  #total = 0;
  #done = 0;
  #failed = 0;
  #barShown = false;
  #lastDraw = 0;

  constructor(out: ConsoleTarget) {
    this.#out = out;
  }

  #paint(code: string, text: string): string {
    return this.#out.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }

  #clearBar(): void {
    if (this.#barShown) {
      this.#out.write("\r\u001b[2K");
      this.#barShown = false;
    }
  }

  #drawBar(force = false): void {
    if (!this.#out.isTTY || this.#total === 0) return;
    const now = performance.now();
    if (!force && now - this.#lastDraw < PROGRESS_INTERVAL_MS) return;
    this.#lastDraw = now;
    const width = 30;
    const filled = Math.round((this.#done / this.#total) * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const failed = this.#failed ? this.#paint("31", ` ${this.#failed} failed`) : "";
    this.#out.write(`\r\u001b[2K ${bar} ${this.#done}/${this.#total}${failed}`);
    this.#barShown = true;
  }

  start(mode: string): void {
    this.#out.write(`retrace eval-test · ${mode}\n\n`);
  }

  /** A file is in: report it if it could not be loaded, and expect its cases, to print its line when the last one ends. */
  fileLoaded(file: LoadedFile, cases: readonly { file: string }[]): void {
    if (file.error) {
      this.#clearBar();
      this.#out.write(` ${this.#paint("31", "✗")} ${file.file} ${this.#paint("31", "could not be loaded")}: ${file.error.message}\n`);
    }
    for (const { file: name } of cases) {
      const entry = this.#pending.get(name) ?? { total: 0, done: 0, failed: 0 };
      entry.total++;
      this.#pending.set(name, entry);
    }
    this.#total += cases.length;
    this.#drawBar();
  }

  caseDone(result: CaseResult, done: number): void {
    this.#done = done;
    if (result.status !== "passed") this.#failed++;
    const entry = this.#pending.get(result.file);
    if (entry) {
      entry.done++;
      if (result.status !== "passed") entry.failed++;
      if (entry.done === entry.total) {
        this.#clearBar();
        const mark = entry.failed ? this.#paint("31", "✗") : this.#paint("32", "✓");
        const note = entry.failed ? ` (${entry.failed} of ${entry.total} failed)` : ` (${entry.total})`;
        this.#out.write(` ${mark} ${result.file}${this.#paint("2", note)}\n`);
        this.#pending.delete(result.file);
      }
    }
    this.#drawBar(done === this.#total);
  }

  finish(report: EvalReport): void {
    this.#clearBar();
    // Files whose cases never all finished (--bail) still get their line.
    for (const [file, entry] of this.#pending) {
      this.#out.write(` ${this.#paint("33", "-")} ${file}${this.#paint("2", ` (${entry.total - entry.done} not run)`)}\n`);
    }
    this.#pending.clear();
    const failing = report.cases.filter((result) => result.status !== "passed" && result.status !== "skipped");
    if (failing.length) {
      this.#out.write(`\n${this.#paint("1", "Failures")}\n`);
      for (const result of failing) this.#writeFailure(result, report);
    }
    for (const error of report.errors) this.#out.write(`\n ${this.#paint("31", "✗")} ${error.message}\n`);
    const { summary } = report;
    const parts = [
      this.#paint(summary.passed ? "32" : "2", `${summary.passed} passed`),
      this.#paint(summary.failed ? "31" : "2", `${summary.failed} failed`),
      ...(summary.errors ? [this.#paint("31", `${summary.errors} could not run`)] : []),
      ...(summary.skipped ? [this.#paint("33", `${summary.skipped} skipped`)] : []),
      ...(summary.fileErrors ? [this.#paint("31", `${summary.fileErrors} file(s) not loaded`)] : []),
    ];
    this.#out.write(`\n${this.#paint("1", "Cases")}  ${parts.join(" · ")} (${summary.cases})\n`);
    // Says what it averages, so a high score beside failed cases does not read as a contradiction.
    const scoredCases = summary.scoredCases ?? summary.cases;
    const averages =
      summary.score === null
        ? `no case was scored${summary.cases ? ": each failed before its assertions decided, or skipped them all" : ""}`
        : `mean assertion score of ${scoredCases === summary.cases ? `the ${scoredCases} case(s)` : `${scoredCases} of ${summary.cases} cases (the others failed before their assertions decided)`}; not a pass rate`;
    this.#out.write(
      `${this.#paint("1", "Score")}  ${summary.score === null ? "—" : formatScore(summary.score)} ${this.#paint("2", `(${averages})`)}   ${this.#paint("1", "Time")}  ${formatSeconds(summary.durationMs)}\n`,
    );
    const flaky = report.cases.filter((result) => result.flaky);
    if (flaky.length) {
      this.#out.write(`\n${this.#paint("33", "Flaky")} (passed some of ${report.options.repeat} runs):\n`);
      for (const result of flaky) this.#out.write(`  ${result.id}: ${Math.round((result.passRate ?? 0) * 100)}%\n`);
    } else if (report.options.repeat > 1) {
      this.#out.write(`Pass rate over ${report.options.repeat} runs per case: ${passRates(report.cases)}\n`);
    }
    if (report.comparison) {
      const comparison = report.comparison;
      this.#out.write(
        `\n${this.#paint("1", "Baseline")} ${comparison.baseline}: ${comparison.regressions.length} regression(s), ${comparison.fixed.length} fixed, ${comparison.added.length} new, ${comparison.removed.length} removed\n`,
      );
      for (const change of comparison.regressions) this.#out.write(`  ${this.#paint("31", "regressed")} ${change.id} (${change.before} → ${change.after})\n`);
      for (const change of comparison.fixed) this.#out.write(`  ${this.#paint("32", "fixed")} ${change.id}\n`);
      for (const change of comparison.scoreChanges.slice(0, 10)) {
        this.#out.write(`  score ${change.id}: ${formatScore(change.before)} → ${formatScore(change.after)} (${change.delta >= 0 ? "+" : ""}${change.delta.toFixed(2)})\n`);
      }
    }
    const verdict =
      summary.exitCode === 0
        ? this.#paint("32", "PASS")
        : summary.exitCode === 1
          ? this.#paint("31", "FAIL")
          : this.#paint("31", summary.fileErrors || summary.errors ? "ERROR (something could not be loaded)" : "ERROR (the run failed outside its cases; see above)");
    this.#out.write(`\n${verdict} · exit code ${summary.exitCode}\n`);
  }

  #writeFailure(result: CaseResult, report: EvalReport): void {
    const mark = result.status === "error" ? this.#paint("31", "✗ could not run:") : this.#paint("31", "✗");
    // A case that failed before its assertions decided has a score that judges nothing.
    const scored = result.score !== null && result.attempts.every((attempt) => attempt.scored !== false);
    const score = scored ? this.#paint("2", ` score ${formatScore(result.score)}`) : "";
    const repeat = result.attempts.length > 1 ? this.#paint("2", ` passed ${Math.round((result.passRate ?? 0) * 100)}% of ${result.attempts.length}`) : "";
    this.#out.write(`\n ${mark} ${result.id}${score}${repeat}\n`);
    for (const line of failureLines(result)) {
      const tag = line.kind === "soft" ? this.#paint("33", "soft ✗") : line.kind === "error" ? this.#paint("31", "!") : this.#paint("31", "✗");
      this.#out.write(`     ${tag} ${line.text}\n`);
    }
    const attempt = result.attempts.find((item) => item.status !== "passed");
    if (attempt?.runId) {
      const where = report.runStore
        ? ` · retrace trace ${attempt.runId} --db ${shellWord(report.runStore)}`
        : report.mode === "mock"
          ? " · kept in memory only (--keep-runs <file.db> keeps it for retrace trace)"
          : " · kept in memory only (--db <path> keeps it)";
      this.#out.write(this.#paint("2", `     run ${attempt.runId}: ${attempt.run?.status ?? "no run"}, ${attempt.run?.steps ?? 0} step(s), ${attempt.run?.toolCalls ?? 0} tool call(s)${where}\n`));
    }
  }
}

function passRates(cases: readonly CaseResult[]): string {
  const rates = cases.map((result) => result.passRate).filter((rate): rate is number => rate !== null);
  if (!rates.length) return "n/a";
  return `${Math.round((rates.reduce((sum, rate) => sum + rate, 0) / rates.length) * 100)}% on average`;
}
