import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_DB_PATH } from "../../store/index.js";
import { tokensText } from "../../trace/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore, storeLabel } from "../store.js";
import { UsageError } from "../../errors/index.js";

function limitOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`runs: --limit must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export const runsHelp = `retrace runs [--db <path>] [--json] [--limit N]

Lists runs, newest first, with status, steps, tokens and cost.
`;

export function runsCommand(argv: string[], io: CliIO): ExitCode {
  const { values } = parseCommandArgs("runs", argv, {
    db: { type: "string" },
    json: { type: "boolean", default: false },
    limit: { type: "string" },
  });
  const limit = limitOption(values.limit);
  if (values.db === undefined && !existsSync(resolve(io.cwd, DEFAULT_DB_PATH))) {
    // Not an error (a new project has no runs), but say where we looked: runs made from
    // another folder, or with a config's store.path, are in another store.
    if (!values.json) io.stdout(`no runs yet: there is no run store at ${DEFAULT_DB_PATH} here (pass --db <path> to read another store)\n`);
    return ExitCode.ok;
  }
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true, readonly: true });
  try {
    // A run whose log says running is either driven right now (its runner holds the lease) or
    // was interrupted (a crash, a kill) and waits for `retrace resume`.
    const runs = store.list(limit === undefined ? {} : { limit }).map((run) => {
      if (run.status !== "running") return run;
      const holder = store.holder(run.runId);
      return holder ? { ...run, runner: { pid: holder.pid, host: holder.host, since: holder.since } } : { ...run, interrupted: true };
    });
    if (values.json) {
      for (const run of runs) io.stdout(`${JSON.stringify(run)}\n`);
      return ExitCode.ok;
    }
    if (runs.length === 0) {
      io.stdout(`no runs yet in ${storeLabel(io.cwd, store)} (pass --db <path> to read another store)\n`);
      return ExitCode.ok;
    }
    const rows = runs.map((run) => [
      run.runId,
      run.agent,
      "runner" in run ? `running (pid ${run.runner.pid} on ${run.runner.host})` : "interrupted" in run ? "interrupted" : run.status,
      String(run.steps),
      tokensText(run.usage),
      run.cost === null ? "unknown" : `$${run.cost.toFixed(4)}`,
      run.startedAt,
    ]);
    const header = ["RUN", "AGENT", "STATUS", "STEPS", "TOKENS", "COST", "STARTED"];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
    for (const row of [header, ...rows]) {
      io.stdout(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd()}\n`);
    }
    return ExitCode.ok;
  } finally {
    store.close();
  }
}
