import { resolve } from "node:path";
import { AgentRun, type TurnOutcome } from "../../agent/index.js";
import { buildAgent, loadConfig } from "../../config/index.js";
import { createRunContext, randomIds } from "../../context/index.js";
import { UsageError } from "../../errors/index.js";
import { missingRoles, type Approver } from "../../policy/index.js";
import { promptApprover } from "../../policy/prompt-approver.js";
import { fold } from "../../journal/index.js";
import type { RunStore } from "../../contracts/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { recordPath } from "../recorded-paths.js";
import { withRunLease } from "../run-lease.js";
import { dbFlag, openStore } from "../store.js";
import { CASSETTE_FLAGS, CASSETTE_HELP, cassetteFlags, reportUnused, runCassette } from "../cassette.js";
import { shellWord } from "../../text/index.js";

export const runHelp = `retrace run <config.yaml> -m <message> [options]

Runs the agent on one message and prints its answer.

Options:
  -m, --message <text>   the user message (required)
  --mock <script.yaml>   answer from a mock script instead of the configured model (no key, no network)
  --db <path>            run store (default: store.path from the config, else .retrace/runs.db)
  --stream               print the answer as it arrives
  --approve prompt       ask y/N on the terminal when a call needs approval (default No);
                         without it, such a run pauses with status "waiting" (exit code 3)
  --json                 print {"runId","status","output"} (plus "error", or "pending" when waiting) as JSON
  --run-id <id>          the new run's id (letters, digits, _ - . :), for scripts that resume or trace it;
                         an id that is already in the store is refused

${CASSETTE_HELP}`;

const RUN_ID = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$/;

/** The roles a call still waits for, from the log of the run that holds the approval. */
function stillNeeded(store: RunStore | undefined, runId: string, callId: string, required: string[]): string[] {
  const approval = store ? fold(store.read(runId)).pendingApprovals.find((candidate) => candidate.callId === callId) : undefined;
  if (!approval) return required;
  const missing = missingRoles(approval);
  return missing.length ? missing : required;
}

function outcomeExitCode(outcome: TurnOutcome): ExitCode {
  if (outcome.status === "completed") return ExitCode.ok;
  if (outcome.status === "waiting") return ExitCode.waiting;
  return ExitCode.failed;
}

/**
 * `db`: the ` --db …` to repeat in the hints (see dbFlag), "" for the default store. `store`:
 * where the hints look up which roles a call still needs.
 */
export function printOutcome(io: CliIO, outcome: TurnOutcome, asJson: boolean, alreadyStreamed = false, db = "", store?: RunStore): ExitCode {
  if (asJson) {
    io.stdout(
      `${JSON.stringify({
        runId: outcome.runId,
        status: outcome.status,
        output: outcome.output,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.status === "waiting" ? { pending: outcome.pending } : {}),
        ...(outcome.childRunId ? { childRunId: outcome.childRunId } : {}),
      })}\n`,
    );
  } else if (outcome.status === "completed") {
    io.stdout(alreadyStreamed ? "\n" : `${outcome.output}\n`);
  } else if (outcome.status === "waiting") {
    const unknown = outcome.pending.some((item) => item.unknownOutcome);
    io.stderr(
      unknown
        ? `run ${outcome.runId} is waiting for a person: a call that is not idempotent was running when its process stopped, so whether it had its effect is unknown. Check, then run it again (--rerun) or tell the model its outcome is unknown (--skip):\n`
        : outcome.childRunId
          ? `run ${outcome.runId} is waiting on its sub-agent run(s), which need approval:\n`
          : `run ${outcome.runId} is waiting for approval:\n`,
    );
    for (const item of outcome.pending) {
      const holder = item.runId ?? outcome.runId;
      if (item.unknownOutcome) {
        io.stderr(`  retrace approve ${holder} ${item.callId} --rerun${db}    # or --skip; ${item.tool}\n`);
        continue;
      }
      // One command per role still needed, each of which can be run as printed.
      const roles = item.roles.length ? stillNeeded(store, holder, item.callId, item.roles) : [undefined];
      roles.forEach((role, index) => {
        const note = index > 0 ? "" : `    # ${item.tool}${item.roles.length ? `, roles still needed: ${roles.join(", ")}` : ""}`;
        io.stderr(`  retrace approve ${holder} ${item.callId}${role ? ` --role ${shellWord(role)}` : ""}${db}${note}\n`);
      });
    }
    io.stderr(`then: retrace resume ${outcome.runId}${db}\n`);
  } else {
    io.stderr(`run ${outcome.runId} failed: ${outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : "unknown error"}\n`);
  }
  return outcomeExitCode(outcome);
}

/**
 * Prints streamed text as it arrives. Text of a step that ends in tool calls, or of an attempt
 * that fails, is not the answer: the line is closed there so the answer starts on its own.
 */
function streamPrinter(io: CliIO) {
  let line = "";
  const close = () => {
    if (line) io.stdout("\n");
    line = "";
  };
  return {
    options: {
      onTextDelta: (delta: string) => {
        line += delta;
        io.stdout(delta);
      },
      onStepEnd: close,
      onRetry: (failure: { attempt: number; message: string; retryInMs: number }) => {
        close();
        io.stderr(`(attempt ${failure.attempt} failed: ${failure.message}; retrying in ${failure.retryInMs} ms)\n`);
      },
    },
    /** Whether the final answer is already on screen. */
    answered: (output: string) => output.length > 0 && line === output,
  };
}

export function approverOption(value: string | undefined): Approver | undefined {
  if (value === undefined) return undefined;
  if (value !== "prompt") throw new UsageError(`--approve: unknown approver "${value}" (the only one is "prompt")`);
  return promptApprover();
}

export async function runCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("run", argv, {
    message: { type: "string", short: "m" },
    mock: { type: "string" },
    db: { type: "string" },
    json: { type: "boolean", default: false },
    stream: { type: "boolean", default: false },
    approve: { type: "string" },
    ...CASSETTE_FLAGS,
    "run-id": { type: "string" },
  });
  const runIdOption = values["run-id"];
  if (runIdOption !== undefined && !RUN_ID.test(runIdOption)) {
    throw new UsageError(`run: --run-id must be 1-128 letters, digits, '_', '-', '.' or ':' (not starting with '.'), got ${JSON.stringify(runIdOption)}`);
  }
  const [configPath, ...extra] = positionals;
  if (!configPath) throw new UsageError("run: missing <config.yaml>\n\n" + runHelp);
  if (extra.length) throw new UsageError(`run: unexpected argument "${extra[0]}"`);
  if (values.message === undefined) throw new UsageError("run: missing -m <message>");

  const configFile = resolve(io.cwd, configPath);
  const mockFile = values.mock ? resolve(io.cwd, values.mock) : undefined;
  const flags = cassetteFlags("run", values, io.cwd);
  if (flags && mockFile) throw new UsageError("run: --mock answers from a script; a cassette records the configured provider (drop one of them)");
  const approver = approverOption(values.approve);
  const loaded = loadConfig(configFile, io.env);
  const cassette = mockFile ? undefined : await runCassette("run", flags, loaded, io.env);
  const agent = await buildAgent(loaded, {
    env: io.env,
    ...(mockFile ? { mock: mockFile } : {}),
    ...(values.stream ? { stream: true } : {}),
    ...(approver ? { approver } : {}),
    ...(cassette ? { fetch: (await import("../../cassette/index.js")).cassetteFetch(cassette), keyless: cassette.mode === "replay" } : {}),
  });
  const synchronous = loaded.config.store.synchronous === "full" ? { synchronous: "FULL" as const } : {};
  const store = openStore(io.cwd, values.db, loaded.config.store.path === undefined ? undefined : resolve(loaded.baseDir, loaded.config.store.path), synchronous);
  try {
    const context = createRunContext({ seed: loaded.config.llm.seed ?? 0 });
    const runId = runIdOption ?? randomIds.runId();
    return await withRunLease(store, runId, io, async () => {
      let run: AgentRun;
      if (store.lastSeq(runId) > 0) {
        // A process killed between the run's start and its message left a run with no turn:
        // running the same command again gives it its message. Anything further along is resumed.
        const opened = AgentRun.open(agent, runId, { store, context });
        if (opened.log.state.turns > 0 || opened.log.state.status !== "running") {
          throw new UsageError(`run: a run ${runId} is already in ${store.path}; pick another --run-id, or continue it with: retrace resume ${runId}${dbFlag(io.cwd, store)}`);
        }
        run = opened;
      } else {
        run = AgentRun.start(agent, {
          store,
          context,
          runId,
          // Relative to the store, so that resume finds them from any folder.
          source: {
            config: recordPath(store.path, configFile),
            ...(mockFile ? { mock: recordPath(store.path, mockFile) } : {}),
            ...(cassette ? { cassette: recordPath(store.path, cassette.file) } : {}),
          },
        });
      }
      // Output guardrails may redact or withhold the answer, so it cannot be shown before they ran.
      const streaming = values.stream && !values.json && !agent.guardrails;
      const printer = streamPrinter(io);
      const outcome = await run.send(values.message as string, streaming ? printer.options : {});
      return printOutcome(io, outcome, values.json, printer.answered(outcome.output), dbFlag(io.cwd, store), store);
    });
  } finally {
    approver?.close?.();
    store.close();
    if (cassette) reportUnused(cassette.close(), io.stderr);
  }
}
