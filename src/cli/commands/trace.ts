import { RunError, UsageError } from "../../errors/index.js";
import { formatTrace } from "../../trace/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const traceHelp = `retrace trace <runId> [--db <path>] [--json]

Prints a run's timeline. With --json: one event per line, exactly as stored.
`;

export function traceCommand(argv: string[], io: CliIO): ExitCode {
  const { values, positionals } = parseCommandArgs("trace", argv, {
    db: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const runId = positionals[0];
  if (!runId) throw new UsageError("trace: missing <runId>\n\n" + traceHelp);
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true, readonly: true });
  const notFound = () =>
    new RunError("run_not_found", `no such run in ${store.path}${values.db === undefined ? " (pass --db <path> if it is in another store)" : ""}`, { runId });
  try {
    if (values.json) {
      const lines = store.readRaw(runId);
      if (lines.length === 0) throw notFound();
      io.stdout(lines.map((line) => `${line}\n`).join(""));
      return ExitCode.ok;
    }
    const events = store.read(runId);
    if (events.length === 0) throw notFound();
    io.stdout(formatTrace(events));
    return ExitCode.ok;
  } finally {
    store.close();
  }
}
