import { resolve } from "node:path";
import { AgentRun, type TurnOutcome } from "../../agent/index.js";
import { buildAgent, loadConfig } from "../../config/index.js";
import { createRunContext } from "../../context/index.js";
import { UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const runHelp = `retrace run <config.yaml> -m <message> [options]

Runs the agent on one message and prints its answer.

Options:
  -m, --message <text>   the user message (required)
  --mock <script.yaml>   answer from a mock script instead of the configured model (no key, no network)
  --db <path>            run store (default: store.path from the config, else .retrace/runs.db)
  --stream               print the answer as it arrives
  --json                 print {"runId","status","output"} (plus "error" or "pending") as JSON
`;

export function outcomeExitCode(outcome: TurnOutcome): ExitCode {
  if (outcome.status === "completed") return ExitCode.ok;
  if (outcome.status === "waiting") return ExitCode.waiting;
  return ExitCode.failed;
}

export function printOutcome(io: CliIO, outcome: TurnOutcome, asJson: boolean, alreadyStreamed = false): ExitCode {
  if (asJson) {
    io.stdout(
      `${JSON.stringify({
        runId: outcome.runId,
        status: outcome.status,
        output: outcome.output,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.status === "waiting" ? { pending: outcome.pending } : {}),
      })}\n`,
    );
  } else if (outcome.status === "completed") {
    if (!alreadyStreamed) io.stdout(`${outcome.output}\n`);
    else io.stdout("\n");
  } else if (outcome.status === "waiting") {
    io.stderr(`run ${outcome.runId} is waiting for approval:\n`);
    for (const item of outcome.pending) {
      io.stderr(`  ${item.callId}  ${item.tool}${item.roles.length ? `  (roles: ${item.roles.join(", ")})` : ""}\n`);
    }
    io.stderr(`approve with: retrace approve ${outcome.runId} <callId>, then: retrace resume ${outcome.runId}\n`);
  } else {
    io.stderr(`run ${outcome.runId} failed: ${outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : "unknown error"}\n`);
  }
  return outcomeExitCode(outcome);
}

export async function runCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("run", argv, {
    message: { type: "string", short: "m" },
    mock: { type: "string" },
    db: { type: "string" },
    json: { type: "boolean", default: false },
    stream: { type: "boolean", default: false },
  });
  const [configPath, ...extra] = positionals;
  if (!configPath) throw new UsageError("run: missing <config.yaml>\n\n" + runHelp);
  if (extra.length) throw new UsageError(`run: unexpected argument "${extra[0]}"`);
  if (values.message === undefined) throw new UsageError("run: missing -m <message>");

  const loaded = loadConfig(resolve(io.cwd, configPath), io.env);
  const agent = await buildAgent(loaded, {
    env: io.env,
    ...(values.mock ? { mock: resolve(io.cwd, values.mock) } : {}),
    ...(values.stream ? { stream: true } : {}),
  });
  const store = openStore(io.cwd, values.db, loaded.config.store.path);
  try {
    const context = createRunContext({ seed: loaded.config.llm.seed ?? 0 });
    const run = AgentRun.start(agent, { store, context });
    const streaming = values.stream && !values.json;
    const outcome = await run.send(values.message, streaming ? { onTextDelta: (delta) => io.stdout(delta) } : {});
    return printOutcome(io, outcome, values.json, streaming && outcome.output.length > 0);
  } finally {
    store.close();
  }
}
