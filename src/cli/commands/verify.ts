import { RunError, UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const verifyHelp = `retrace verify <runId> [--db <path>] [--json]

Checks the run's hash chain (and those of its sub-agent runs): every row must follow from the
one before it. Reports the first row that was edited, deleted, swapped or inserted by hand,
with its seq. Opens the store read-only.

Exit codes: 0 the chain holds; 5 it does not; 2 no such run or store.
`;

export function verifyCommand(argv: string[], io: CliIO): ExitCode {
  const { values, positionals } = parseCommandArgs("verify", argv, {
    db: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const runId = positionals[0];
  if (!runId) throw new UsageError("verify: missing <runId>\n\n" + verifyHelp);
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true, readonly: true });
  try {
    if (store.lastSeq(runId) === 0) throw new RunError("run_not_found", `no such run in ${store.path}`, { runId });
    let broken = false;
    for (const member of store.family(runId)) {
      const report = store.verify(member);
      if (values.json) io.stdout(`${JSON.stringify({ runId: member, ...report })}\n`);
      else if (report.ok) io.stdout(`run ${member}: ${report.events} event(s), chain intact (head ${report.head.slice(0, 16)})\n`);
      else io.stdout(`run ${member}: TAMPERED at seq ${report.seq}: ${report.problem}\n`);
      broken ||= !report.ok;
    }
    return broken ? ExitCode.tampered : ExitCode.ok;
  } finally {
    store.close();
  }
}
