import { RetraceError } from "../errors/index.js";
import { nearest } from "../text/index.js";
import { ExitCode } from "./exit-codes.js";
import { processIO, type CliIO } from "./io.js";

interface CommandModule {
  run(argv: string[], io: CliIO): Promise<ExitCode> | ExitCode;
  help: string;
}
/** `subcommands`: the command has its own (`bench bfcl --help` is bfcl's help, not bench's), so it handles --help itself. */
type Command = { load: () => Promise<CommandModule>; summary: string; subcommands?: true };

// Each command's module (and what it pulls in: SQLite, esbuild, the eval runner) is loaded only
// when that command runs, so `retrace runs` does not pay for `eval-test` at every start.
const lazy =
  <M>(load: () => Promise<M>, pick: (module: M) => CommandModule) =>
  async (): Promise<CommandModule> =>
    pick(await load());

const evalTest = lazy(() => import("./commands/eval-test.js"), (m) => ({ run: m.evalTestCommand, help: m.evalTestHelp }));

const commands: Record<string, Command> = {
  run: { load: lazy(() => import("./commands/run.js"), (m) => ({ run: m.runCommand, help: m.runHelp })), summary: "run an agent on one message" },
  runs: { load: lazy(() => import("./commands/runs.js"), (m) => ({ run: m.runsCommand, help: m.runsHelp })), summary: "list recorded runs" },
  trace: { load: lazy(() => import("./commands/trace.js"), (m) => ({ run: m.traceCommand, help: m.traceHelp })), summary: "print a run's timeline (or its raw events)" },
  view: { load: lazy(() => import("./commands/view.js"), (m) => ({ run: m.viewCommand, help: m.viewHelp })), summary: "write a run's timeline or an eval report as one HTML page" },
  "eval-test": { load: evalTest, summary: "run eval cases (--mock: no key, no network)" },
  eval: { load: evalTest, summary: "alias of eval-test" },
  "merge-reports": {
    load: lazy(() => import("./commands/merge-reports.js"), (m) => ({ run: m.mergeReportsCommand, help: m.mergeReportsHelp })),
    summary: "merge the JSON reports of sharded eval runs",
  },
  init: { load: lazy(() => import("./commands/init.js"), (m) => ({ run: m.initCommand, help: m.initHelp })), summary: "scaffold an agent, a mock script and passing evals" },
  approve: { load: lazy(() => import("./commands/approve.js"), (m) => ({ run: m.approveCommand, help: m.approveHelp })), summary: "approve or deny a call a run waits on" },
  bench: { load: lazy(() => import("./commands/bench.js"), (m) => ({ run: m.benchCommand, help: m.benchHelp })), summary: "run a public benchmark (BFCL, GAIA) with its official scoring", subcommands: true },
  resume: { load: lazy(() => import("./commands/resume.js"), (m) => ({ run: m.resumeCommand, help: m.resumeHelp })), summary: "continue a paused run where it stopped" },
  capture: { load: lazy(() => import("./commands/capture.js"), (m) => ({ run: m.captureCommand, help: m.captureHelp })), summary: "pack a run into a bundle (.tgz) that replays anywhere" },
  inspect: { load: lazy(() => import("./commands/inspect.js"), (m) => ({ run: m.inspectCommand, help: m.inspectHelp })), summary: "verify a bundle and summarise its run" },
  replay: { load: lazy(() => import("./commands/replay.js"), (m) => ({ run: m.replayCommand, help: m.replayHelp })), summary: "replay a bundle and compare (identical, or where it diverges)" },
  score: { load: lazy(() => import("./commands/score.js"), (m) => ({ run: m.scoreCommand, help: m.scoreHelp })), summary: "apply an eval file's assertions to a recorded run or a bundle" },
  verify: { load: lazy(() => import("./commands/verify.js"), (m) => ({ run: m.verifyCommand, help: m.verifyHelp })), summary: "check a run's hash chain (edited, deleted or swapped rows)" },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `retrace — record, replay and test AI agents

Usage: retrace <command> [options]

Commands:
${lines.join("\n")}

Run "retrace <command> --help" for a command's options.
Exit codes: 0 completed, 1 the run failed, 2 usage or config error, 3 waiting for approval,
4 another process is executing the run, 5 the log failed its hash-chain check (verify, resume).
`;
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage());
    return name ? ExitCode.ok : ExitCode.usage;
  }
  if (name === "--version" || name === "-v") {
    const { ownPackage } = await import("../package-info.js");
    io.stdout(`${ownPackage().version}\n`);
    return ExitCode.ok;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    const suggestion = nearest(name, Object.keys(commands));
    io.stderr(`unknown command "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}\n\n${usage()}`);
    return ExitCode.usage;
  }
  const command = await entry.load();
  if (!entry.subcommands && (rest.includes("--help") || rest.includes("-h"))) {
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
