import { systemClock } from "../../context/index.js";
import { RunError, UsageError } from "../../errors/index.js";
import { childRunId } from "../../agent/index.js";
import { familyRoot, RunLog, type RunLogOptions, type SqliteRunStore } from "../../store/index.js";
import { eventRedactor } from "../../redaction/index.js";
import { ANY_APPROVER, missingRoles } from "../../policy/index.js";
import { agentForRun } from "../agent-for-run.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { withRunLease } from "../run-lease.js";
import { dbFlag, openStore } from "../store.js";
import { shellWord } from "../../text/index.js";

export const approveHelp = `retrace approve <runId> <callId> [options]

Records a decision on a call that waits for approval. The decision is bound to the call and
to a hash of its exact arguments, and is used once. Then: retrace resume <runId>.

A call whose outcome is unknown (it was running, is not idempotent, and its process died)
waits for one of:
  --rerun            run it again
  --skip             do not run it again; the model is told its outcome is unknown

Options:
  --role <role>      approve as this role (needed when the call requires several roles)
  --deny             deny instead of approve
  --reason <text>    why (recorded with a denial)
  --by <name>        who decided (recorded)
  --db <path>        run store (default .retrace/runs.db)
  --config <file>    the agent's config, for the key values the decision must not record
                     (default: the one the run was started with)
`;

type ApproveValues = { role?: string | undefined; deny: boolean; reason?: string | undefined; by?: string | undefined; rerun: boolean; skip: boolean };

export async function approveCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("approve", argv, {
    role: { type: "string" },
    deny: { type: "boolean", default: false },
    reason: { type: "string" },
    by: { type: "string" },
    db: { type: "string" },
    config: { type: "string" },
    rerun: { type: "boolean", default: false },
    skip: { type: "boolean", default: false },
  });
  const [runId, callId] = positionals;
  if (!runId || !callId) throw new UsageError("approve: missing <runId> <callId>\n\n" + approveHelp);
  if (values.rerun && values.skip) throw new UsageError("approve: --rerun and --skip exclude each other");
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
  try {
    if (store.lastSeq(runId) === 0) throw new RunError("run_not_found", `no such run in ${store.path}`, { runId });
    // A decision is a write to the run: it waits for no process to be driving the run.
    return await withRunLease(store, runId, io, async () => {
      const options = await recordedRedaction(store, runId, io, values.config);
      return decide(store, RunLog.open(runId, store, systemClock, options), runId, callId, values, io);
    });
  } finally {
    store.close();
  }
}

/**
 * The run's own redaction: the key values of the config it was started with, so a key typed
 * into --reason or --by is removed from the log as the run itself would remove it. A run
 * started from code records no config and gets the default (credential patterns).
 */
async function recordedRedaction(store: SqliteRunStore, runId: string, io: CliIO, config: string | undefined): Promise<RunLogOptions> {
  const first = store.read(familyRoot(store, runId), 1, 1)[0];
  const recorded = first?.type === "run.started" && first.source?.config !== undefined;
  if (!recorded && config === undefined) return {};
  const { agent } = await agentForRun(store, runId, { cwd: io.cwd, ...(config !== undefined ? { config } : {}), build: { env: io.env } });
  return agent.redaction ? { redact: eventRedactor(agent.redaction) } : {};
}

function decide(store: SqliteRunStore, log: RunLog, runId: string, callId: string, values: ApproveValues, io: CliIO): ExitCode {
  const db = dbFlag(io.cwd, store);
  const unknown = log.state.pendingCalls.find((call) => call.callId === callId && call.phase === "unknown");
  if (values.rerun || values.skip) {
    if (!unknown) {
      const waiting = log.state.pendingCalls.filter((call) => call.phase === "unknown").map((call) => `${call.callId} (${call.name})`);
      throw new RunError(
        "decision_not_pending",
        `call ${callId} does not wait for a --rerun/--skip decision${waiting.length ? `; these do: ${waiting.join(", ")}` : ""}`,
        { runId, callId },
      );
    }
    const decision = values.rerun ? "rerun" : "skip";
    log.append<"tool.decided">({ type: "tool.decided", callId, name: unknown.name, decision, ...(values.by !== undefined ? { by: values.by } : {}) });
    io.stdout(
      `${decision === "rerun" ? "will run" : "will not run"} ${callId} (${unknown.name}) again; resume with: retrace resume ${familyRoot(store, runId)}${db}\n`,
    );
    return ExitCode.ok;
  }
  if (unknown) {
    throw new UsageError(
      `call ${callId} (${unknown.name}) started but its outcome is unknown; decide with --rerun (run it again) or --skip (tell the model the outcome is unknown)`,
    );
  }
  const approval = log.state.pendingApprovals.find((candidate) => candidate.callId === callId);
  const inChild = approval ? undefined : log.state.waiting?.pending.find((item) => item.callId === callId && item.runId !== undefined && item.runId !== runId);
  if (inChild?.runId) {
    throw new RunError(
      "approval_in_child_run",
      `call ${callId} (${inChild.tool}) waits in the sub-agent's child run ${inChild.runId}, not in this run; ` +
        `approve it there: retrace approve ${inChild.runId} ${callId}${db}, then: retrace resume ${runId}${db}`,
      { runId, callId },
    );
  }
  // The id of the call that started a sub-agent: what waits is in its child run.
  const child = childRunId(runId, callId);
  const inThatChild = approval ? [] : (log.state.waiting?.pending ?? []).filter((item) => item.runId === child);
  if (inThatChild.length > 0) {
    const commands = inThatChild.map((item) => `retrace approve ${child} ${item.callId}${db}    # ${item.tool}`).join("; ");
    throw new RunError(
      "approval_in_child_run",
      `call ${callId} runs a sub-agent, whose child run ${child} waits for approval; approve there: ${commands}; then: retrace resume ${runId}${db}`,
      { runId, callId },
    );
  }
  if (!approval) {
    const pending = log.state.pendingApprovals.map((candidate) => `${candidate.callId} (${candidate.tool})`).join(", ");
    throw new RunError("approval_not_pending", `no approval is pending for call ${callId}${pending ? `; pending: ${pending}` : ""}`, { runId, callId });
  }
  if (approval.expired) throw new RunError("approval_expired", `the approval for call ${callId} has expired; resume the run to settle the call`, { runId, callId });
  const missing = missingRoles(approval);
  let role = values.role;
  if (approval.roles.length === 0) role ??= ANY_APPROVER;
  else if (role === undefined) {
    if (missing.length !== 1) {
      throw new UsageError(
        `call ${callId} needs approval from ${missing.join(" and ")}: pass --role, e.g. retrace approve ${runId} ${callId} --role ${shellWord(missing[0] as string)}${db}`,
      );
    }
    role = missing[0] as string;
  } else if (!approval.roles.includes(role)) {
    // A role the call does not require would not count; say so instead of recording it.
    throw new UsageError(`role ${role} is not required for call ${callId} (required: ${approval.roles.join(", ")})`);
  } else if (approval.granted.includes(role)) {
    throw new UsageError(`call ${callId} is already approved as ${role}; still needed: ${missing.join(", ") || "nothing"}`);
  }
  const resumeTarget = familyRoot(store, runId);
  const by = values.by !== undefined ? { by: values.by } : {};
  if (approval.deadline !== undefined && systemClock.now() > approval.deadline) {
    log.append<"approval.expired">({
      type: "approval.expired",
      callId,
      detail: `the decision arrived after the deadline (${new Date(approval.deadline).toISOString()})`,
    });
    io.stderr(`approval for call ${callId} expired at ${new Date(approval.deadline).toISOString()}; the call will be blocked (approval_expired) on resume\n`);
    return ExitCode.failed;
  }
  if (values.deny) {
    log.append<"approval.denied">({ type: "approval.denied", callId, argsHash: approval.argsHash, role, reason: values.reason ?? "denied", ...by });
    io.stdout(`denied ${callId} (${approval.tool}); resume with: retrace resume ${resumeTarget}${db}\n`);
    return ExitCode.ok;
  }
  log.append<"approval.granted">({ type: "approval.granted", callId, argsHash: approval.argsHash, role, ...by });
  const still = missing.filter((name) => name !== role && approval.roles.length > 0);
  io.stdout(
    still.length
      ? `approved ${callId} (${approval.tool}) as ${role}; still needed: ${still.join(", ")} ` +
          `(${still.map((name) => `retrace approve ${runId} ${callId} --role ${shellWord(name)}${db}`).join("; ")})\n`
      : `approved ${callId} (${approval.tool}); resume with: retrace resume ${resumeTarget}${db}\n`,
  );
  return ExitCode.ok;
}
