import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_DB_PATH } from "../../store/index.js";
import { tokensText } from "../../trace/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const runsHelp = `retrace runs [--db <path>] [--json] [--limit N]

Lists runs, newest first, with status, steps, tokens and cost.
`;

export function runsCommand(argv: string[], io: CliIO): ExitCode {
  const { values } = parseCommandArgs("runs", argv, {
    db: { type: "string" },
    json: { type: "boolean", default: false },
    limit: { type: "string" },
  });
  if (values.db === undefined && !existsSync(resolve(io.cwd, DEFAULT_DB_PATH))) {
    if (!values.json) io.stdout("no runs yet\n");
    return ExitCode.ok;
  }
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
  try {
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    const runs = store.list(limit === undefined ? {} : { limit });
    if (values.json) {
      for (const run of runs) io.stdout(`${JSON.stringify(run)}\n`);
      return ExitCode.ok;
    }
    if (runs.length === 0) {
      io.stdout("no runs yet\n");
      return ExitCode.ok;
    }
    const rows = runs.map((run) => [
      run.runId,
      run.agent,
      run.status,
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
