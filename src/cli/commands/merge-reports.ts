import { resolve } from "node:path";
import { UsageError } from "../../errors/index.js";
import { ConsoleReporter } from "../../eval/report/console.js";
import { mergeReports } from "../../eval/report/merge.js";
import { readReport } from "../../eval/report/read.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { consoleTarget, parseReporters, readBaseline, writeFileReports, writesToStdout, writeStdoutReports } from "./eval-test.js";

export const mergeReportsHelp = `retrace merge-reports <report.json...> [--baseline <report.json>] [--reporter json=<file>|junit=<file>|markdown=<file>|html=<file>]

Merges the JSON reports of the shards of one eval run (retrace eval-test --shard i/n
--reporter json=<file>) into one report, prints its summary and exits as the whole run would have.
Every shard must be there (1/n to n/n, once each), run with the same --repeat, --threshold,
--tags and -t.

  --baseline <file>      compare the merged run with a previous JSON report (a shard's own
                         comparison covers only its share, so the merged report drops those)

Exit codes: 0 all cases passed, 1 a case failed, 2 a report, file or config could not be loaded.
`;

export async function mergeReportsCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("merge-reports", argv, { reporter: { type: "string", multiple: true }, baseline: { type: "string" } });
  if (positionals.length === 0) throw new UsageError(`merge-reports: give the JSON reports to merge\n\n${mergeReportsHelp}`);
  const reporters = parseReporters(values.reporter ?? [], io.cwd, "merge-reports");
  const baseline = readBaseline(values.baseline, io.cwd);
  let merged = mergeReports(
    positionals.map((file) => ({ file, report: readReport(resolve(io.cwd, file)) })),
    baseline ? { baseline } : {},
  );
  merged = await writeFileReports(merged, reporters, io);
  if (!reporters.some(writesToStdout)) {
    const reporter = new ConsoleReporter(consoleTarget(io));
    io.stdout(`merged ${positionals.length} report(s): ${merged.summary.cases} case(s)\n`);
    reporter.finish(merged);
  }
  writeStdoutReports(merged, reporters, io);
  return merged.summary.exitCode;
}
