import { RetraceError } from "../errors/index.js";
import { approveCommand, approveHelp } from "./commands/approve.js";
import { resumeCommand, resumeHelp } from "./commands/resume.js";
import { runCommand, runHelp } from "./commands/run.js";
import { runsCommand, runsHelp } from "./commands/runs.js";
import { traceCommand, traceHelp } from "./commands/trace.js";
import { evalTestCommand, evalTestHelp } from "./commands/eval-test.js";
import { initCommand, initHelp } from "./commands/init.js";
import { mergeReportsCommand, mergeReportsHelp } from "./commands/merge-reports.js";
import { ExitCode } from "./exit-codes.js";
import { processIO, type CliIO } from "./io.js";

type Command = { run(argv: string[], io: CliIO): Promise<ExitCode> | ExitCode; help: string; summary: string };

const commands: Record<string, Command> = {
  run: { run: runCommand, help: runHelp, summary: "run an agent on one message" },
  runs: { run: runsCommand, help: runsHelp, summary: "list recorded runs" },
  trace: { run: traceCommand, help: traceHelp, summary: "print a run's timeline (or its raw events)" },
  "eval-test": { run: evalTestCommand, help: evalTestHelp, summary: "run eval cases (--mock: no key, no network)" },
  eval: { run: evalTestCommand, help: evalTestHelp, summary: "alias of eval-test" },
  "merge-reports": { run: mergeReportsCommand, help: mergeReportsHelp, summary: "merge the JSON reports of sharded eval runs" },
  init: { run: initCommand, help: initHelp, summary: "scaffold an agent, a mock script and passing evals" },
  approve: { run: approveCommand, help: approveHelp, summary: "approve or deny a call a run waits on" },
  resume: { run: resumeCommand, help: resumeHelp, summary: "continue a paused run where it stopped" },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `retrace — record, replay and test AI agents

Usage: retrace <command> [options]

Commands:
${lines.join("\n")}

Run "retrace <command> --help" for a command's options.
Exit codes: 0 completed, 1 the run failed, 2 usage or config error, 3 waiting for approval.
`;
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage());
    return name ? ExitCode.ok : ExitCode.usage;
  }
  if (name === "--version" || name === "-v") {
    const { createRequire } = await import("node:module");
    const pkg = createRequire(import.meta.url)("../../../package.json") as { version: string };
    io.stdout(`${pkg.version}\n`);
    return ExitCode.ok;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`unknown command "${name}"\n\n${usage()}`);
    return ExitCode.usage;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof RetraceError) {
      io.stderr(`error: ${error.describe()}\n`);
      return ExitCode.usage;
    }
    io.stderr(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return ExitCode.failed;
  }
}
