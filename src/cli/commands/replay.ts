import { resolve } from "node:path";
import { loadBundle } from "../../bundle/index.js";
import type { RunStore } from "../../contracts/index.js";
import { UsageError } from "../../errors/index.js";
import { replayBundle, type OutcomeSummary, type ReplayOptions, type ReplayVerdict } from "../../replay/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore, storeLabel } from "../store.js";

export const replayHelp = `retrace replay <file.tgz> [options]

Runs the bundled agent again with the model answers, tool results, approvals, clock, ids and
seed of the recording — no key, no network — and compares the new log with the recorded one.
Same: prints "identical" and the log's sha256 (exit 0). Different: prints the first divergent
event and, when a model request changed, what changed in it (exit 1).

Options:
  --config <agent.yaml>      replay with a changed agent config
  --continue mock:<script>   what if: after the first divergence, go on against this mock script
  --continue live            what if: after the first divergence, go on against the live provider (needs its key)
  --db <path>                where a --continue run is written (default .retrace/runs.db)
  --level run|wire           wire (default with a cassette): the provider SDK parses the recorded HTTP
                             bytes; run: the logged responses are served as they are
  --tools live               re-run the tools marked idempotent (to test them); the rest serve the recording
  --json                     print the verdict as JSON
`;

function parseContinue(value: string | undefined, cwd: string): ReplayOptions["continue"] {
  if (value === undefined) return undefined;
  if (value === "live") return { live: true };
  if (value.startsWith("mock:") && value.length > 5) return { mock: resolve(cwd, value.slice(5)) };
  throw new UsageError(`--continue: expected mock:<script.yaml> or live, got "${value}"`);
}

function showEvent(line: string | undefined): string {
  if (line === undefined) return "(none: the log ends here)";
  return line.length > 400 ? `${line.slice(0, 397)}...` : line;
}

function list(items: readonly string[]): string {
  return items.length ? items.join(", ") : "-";
}

function sideBySide(recorded: OutcomeSummary, replayed: OutcomeSummary): string[] {
  const rows: [string, string, string][] = [
    ["status", recorded.status, replayed.status],
    ["tools called", list(recorded.toolsCalled), list(replayed.toolsCalled)],
    ["blocked", list(recorded.blocked.map((item) => `${item.name} (${item.reason})`)), list(replayed.blocked.map((item) => `${item.name} (${item.reason})`))],
    ["failed", list(recorded.failed.map((item) => `${item.name} (${item.kind})`)), list(replayed.failed.map((item) => `${item.name} (${item.kind})`))],
    ["answer", recorded.output || "-", replayed.output || "-"],
  ];
  const width = Math.max(8, ...rows.map((row) => Math.min(48, row[1].length)));
  const cut = (text: string) => (text.length > 48 ? `${text.slice(0, 45)}...` : text);
  return [`  ${"".padEnd(12)}  ${"recorded".padEnd(width)}  what if`, ...rows.map(([name, a, b]) => `  ${name.padEnd(12)}  ${cut(a).padEnd(width)}  ${cut(b)}`)];
}

function printVerdict(io: CliIO, verdict: ReplayVerdict, where: string | undefined): void {
  if (verdict.status === "identical") {
    io.stdout(`identical ${verdict.sha256}\n`);
    return;
  }
  const { divergence, request } = verdict;
  const lines = [
    `diverged at run ${divergence.runId} seq ${divergence.seq}${divergence.expected ? ` (${divergence.expected.type})` : ""}`,
    `  expected: ${showEvent(divergence.expectedLine)}`,
    `  actual:   ${showEvent(divergence.actualLine)}`,
  ];
  if (divergence.changes.length) lines.push("  what differs:", ...divergence.changes.map((change) => `    ${change}`));
  if (request) {
    lines.push(`model request #${request.call} of run ${request.runId} differs from the recording (request key ${request.expectedKey?.slice(0, 12) ?? "none"} → ${request.actualKey.slice(0, 12)}):`);
    lines.push(...request.lines.map((line) => `    ${line}`));
  }
  if (verdict.error) lines.push(`replay stopped: ${verdict.error}`);
  if (verdict.continued) {
    lines.push(`what if — run ${verdict.replayRunId}${where ? ` in ${where}` : ""}:`, ...sideBySide(verdict.recorded, verdict.replayed));
  }
  io.stdout(`${lines.join("\n")}\n`);
}

export async function replayCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("replay", argv, {
    config: { type: "string" },
    continue: { type: "string" },
    db: { type: "string" },
    tools: { type: "string" },
    level: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const [file, ...extra] = positionals;
  if (!file) throw new UsageError("replay: missing <file.tgz>\n\n" + replayHelp);
  if (extra.length) throw new UsageError(`replay: unexpected argument "${extra[0]}"`);
  if (values.tools !== undefined && values.tools !== "live" && values.tools !== "recorded") throw new UsageError(`--tools: expected live or recorded, got "${values.tools}"`);
  if (values.level !== undefined && values.level !== "wire" && values.level !== "run") throw new UsageError(`--level: expected wire or run, got "${values.level}"`);
  const continued = parseContinue(values.continue, io.cwd);
  if (values.db !== undefined && !continued) throw new UsageError("--db: only a --continue run is written to a store");
  const bundle = await loadBundle(resolve(io.cwd, file), {}, file);
  const store = continued ? openStore(io.cwd, values.db) : undefined;
  try {
    const verdict = await replayBundle(bundle, {
      env: io.env,
      ...(values.config ? { config: resolve(io.cwd, values.config) } : {}),
      ...(values.tools === "live" ? { tools: "live" as const } : {}),
      ...(values.level === "run" || values.level === "wire" ? { level: values.level } : {}),
      ...(continued ? { continue: continued } : {}),
      ...(store ? { store: store as RunStore } : {}),
    });
    if (values.json) io.stdout(`${JSON.stringify(verdict)}\n`);
    else printVerdict(io, verdict, store ? storeLabel(io.cwd, store) : undefined);
    return verdict.status === "identical" ? ExitCode.ok : ExitCode.failed;
  } finally {
    store?.close();
  }
}
