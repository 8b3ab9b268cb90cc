import { AgentRun } from "../../agent/index.js";
import { createRunContext } from "../../context/index.js";
import { UsageError } from "../../errors/index.js";
import type { AgentDefinition } from "../../agent/index.js";
import type { EventOf } from "../../contracts/index.js";
import { agentForRun } from "../agent-for-run.js";
import { parseCassetteMode, reportUnused } from "../cassette.js";
import { parseCommandArgs } from "../args.js";
import type { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { tamperedExit, withRunLease } from "../run-lease.js";
import type { SqliteRunStore } from "../../store/index.js";
import type { Approver } from "../../policy/index.js";
import { dbFlag, openStore } from "../store.js";
import { approverOption, printOutcome } from "./run.js";

export const resumeHelp = `retrace resume <runId> [options]

Continues a run exactly where it stopped: after approvals were decided, after a sub-agent it
waits on finished, or after the process running it died. Finished work is never redone: a
recorded model answer is never asked again, a recorded tool result never re-run; a tool that
was running when the process died runs again if it is idempotent, and otherwise waits for
\`retrace approve <runId> <callId> --rerun | --skip\`. Works from any folder.

The log's hash chain is checked first; a tampered log is refused (exit 5). Only one process
runs a run at a time: if another live process holds it, this exits 4 and does nothing.

Options:
  --config <agent.yaml>  the agent's config (default: the one the run was started with)
  --mock <script.yaml>   the mock script (default: the one the run was started with)
  --db <path>            run store (default .retrace/runs.db)
  --approve prompt       ask y/N on the terminal for calls that still need approval
  --json                 print {"runId","status","output"} (plus "error" or "pending") as JSON
  --cassette-mode <m>    for a run whose traffic went through a cassette (it is reopened): auto
                         (default: serve what is recorded, record the rest), replay (no key, no
                         network), record, update, or live (do not reopen it)
`;

export async function resumeCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("resume", argv, {
    config: { type: "string" },
    mock: { type: "string" },
    db: { type: "string" },
    json: { type: "boolean", default: false },
    approve: { type: "string" },
    "cassette-mode": { type: "string" },
  });
  const runId = positionals[0];
  if (!runId) throw new UsageError("resume: missing <runId>\n\n" + resumeHelp);
  const approver = approverOption(values.approve);
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
  try {
    return await withRunLease(store, runId, io, async () => {
      try {
        return await resumeHeld(store, runId, io, values, approver);
      } catch (error) {
        return tamperedExit(io, error);
      }
    });
  } finally {
    approver?.close?.();
    store.close();
  }
}

async function resumeHeld(
  store: SqliteRunStore,
  runId: string,
  io: CliIO,
  values: { config?: string | undefined; mock?: string | undefined; json: boolean; "cassette-mode"?: string | undefined },
  approver: Approver | undefined,
): Promise<ExitCode> {
  // Every log this resume reads in full is checked against its hash chain as it is read.
  const cassetteMode = values["cassette-mode"] === undefined ? undefined : parseCassetteMode("resume", values["cassette-mode"]);
  const { agent, started, changed, cassette } = await agentForRun(store, runId, {
    cwd: io.cwd,
    ...(values.config ? { config: values.config } : {}),
    ...(values.mock ? { mock: values.mock } : {}),
    ...(cassetteMode ? { cassetteMode } : {}),
    build: { env: io.env, ...(approver ? { approver } : {}) },
  });
  try {
    return await continueRun(agent, started, changed, store, runId, io, values.json);
  } finally {
    if (cassette) reportUnused(cassette.close(), io.stderr);
  }
}

async function continueRun(
  agent: AgentDefinition,
  started: EventOf<"run.started">,
  changed: boolean,
  store: SqliteRunStore,
  runId: string,
  io: CliIO,
  json: boolean,
): Promise<ExitCode> {
  if (changed) io.stderr(`warning: the agent's definition changed since run ${runId} started; continuing with the current one\n`);
  const context = createRunContext({ seed: started.seed });
  const before = store.lastSeq(runId);
  const outcome = await AgentRun.open(agent, runId, { store, context }).resume({ mark: true });
  if (store.lastSeq(runId) === before && (outcome.status === "completed" || outcome.status === "failed")) {
    io.stderr(`run ${runId} had already ${outcome.status === "completed" ? "completed" : "failed"}: nothing was left to do\n`);
  }
  return printOutcome(io, outcome, json, false, dbFlag(io.cwd, store), store);
}
