import { resolve } from "node:path";
import { inspectBundle, loadBundle, type RunInspection } from "../../bundle/index.js";
import { UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";

export const inspectHelp = `retrace inspect <file.tgz> [--json]

Verifies a bundle (every checksum, every event) and summarises its run and child runs:
status, model, turns and steps, tools called, blocked and failed, approvals, tokens, cost,
duration. A bundle that fails a check is refused with exit code 2.
`;

function money(cost: number | null): string {
  return cost === null ? "unknown" : `$${cost.toFixed(6)}`;
}

function describeRun(run: RunInspection, indent: string): string[] {
  const lines = [
    `${indent}run ${run.runId}${run.parent ? ` (child of ${run.parent.runId}, call ${run.parent.callId})` : ""}: ${run.status}`,
    `${indent}  agent ${run.agent}, model ${run.model.provider}/${run.model.model}`,
    `${indent}  turns ${run.turns}, steps ${run.steps}, duration ${run.durationMs} ms`,
    `${indent}  tokens ${run.usage.inputTokens} in / ${run.usage.outputTokens} out, cost ${money(run.cost)}`,
    `${indent}  tools called: ${run.tools.called.length ? run.tools.called.join(", ") : "none"}`,
  ];
  if (run.tools.blocked.length) lines.push(`${indent}  blocked: ${run.tools.blocked.map((item) => `${item.name} (${item.reason})`).join(", ")}`);
  if (run.tools.failed.length) lines.push(`${indent}  failed: ${run.tools.failed.map((item) => `${item.name} (${item.kind})`).join(", ")}`);
  const a = run.approvals;
  if (a.requested) lines.push(`${indent}  approvals: ${a.requested} requested, ${a.granted} granted, ${a.denied} denied, ${a.expired} expired`);
  if (run.output) lines.push(`${indent}  output: ${run.output.length > 200 ? `${run.output.slice(0, 197)}...` : run.output}`);
  return lines;
}

export async function inspectCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("inspect", argv, { json: { type: "boolean", default: false } });
  const [file, ...extra] = positionals;
  if (!file) throw new UsageError("inspect: missing <file.tgz>\n\n" + inspectHelp);
  if (extra.length) throw new UsageError(`inspect: unexpected argument "${extra[0]}"`);
  const bundle = await loadBundle(resolve(io.cwd, file), {}, file);
  const inspection = inspectBundle(bundle);
  if (values.json) {
    io.stdout(`${JSON.stringify(inspection)}\n`);
    return ExitCode.ok;
  }
  const lines = [
    `bundle ${file}: format ${inspection.format}, captured by Retrace ${inspection.retrace}, ${inspection.size} bytes`,
    `checksums: ok (${inspection.entries.length} entries verified)${inspection.cassette ? ", with a cassette" : ""}`,
    `log sha256 ${inspection.logSha256}`,
    `started ${inspection.createdAt}, ${inspection.runs.length - 1} child run(s)`,
    ...inspection.runs.flatMap((run) => describeRun(run, run.parent ? "  " : "")),
  ];
  io.stdout(`${lines.join("\n")}\n`);
  return ExitCode.ok;
}
