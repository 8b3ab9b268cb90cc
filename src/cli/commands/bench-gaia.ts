import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { CassetteMode, CassetteTiming } from "../../cassette/index.js";
import { scoreGaia } from "../../benchmarks/gaia/index.js";
import { parseModelChoice } from "../../eval/benchmarks/model-choice.js";
import { loadGaia, runGaia, summariseGaia, type GaiaModel, type GaiaResult, type GaiaSummary } from "../../eval/benchmarks/gaia/index.js";
import { BenchmarkDataError, UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { CASSETTE_FLAGS, CASSETTE_HELP, cassetteFlags, cassetteSecrets } from "../cassette.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { shellWord } from "../../text/index.js";

export const benchGaiaHelp = `retrace bench gaia --data <dir> --model <provider:model> [options]
retrace bench gaia check <cases.jsonl>

Runs GAIA's tasks (2023/<split>/metadata.jsonl under --data, attachments beside it) and scores
each answer with the official scorer: the text after "FINAL ANSWER:" compared as a number, a
list or a normalised string, with Python's semantics. The model is asked alone, with GAIA's
system prompt and no tools. GAIA's data is gated: bring your own copy.

Options:
  --data <dir>          the GAIA folder (or a folder holding metadata.jsonl)
  --model <p:m>         openai:<model>, anthropic:<model>, openai-compatible:<model> (with --base-url),
                        or scripted:<file> (JSON Lines {"task_id","reply"}: no key, no network)
  --base-url <url>      the endpoint of an openai-compatible model
  --split <name>        validation (default) or test (answers private: results unscored)
  --level <n,…>         only these levels (1-3)
  --limit N             the first N tasks (after --level)
  --concurrency N       tasks in flight (default: the eval engine's)
  -o, --output <file>   results as JSON Lines: task_id, level, status, reply, answer, ground_truth, branch
  --json                print the summary as JSON

${CASSETTE_HELP.replace("a cassette in <dir>", "one cassette per task in <dir>")}
check: scores rows {"model_answer","ground_truth"[,"expected"]} and prints {"index","correct"}
per row (index from 0, in file order), then a summary line. Exit 1 when a row disagrees with
its "expected" or cannot be read.

Exit codes: 0 every task was scored, 1 a task could not be asked (see its error), 2 usage or data.
`;

function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`bench gaia: --${name} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function readReplies(cwd: string, file: string): Map<string, string> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`bench gaia: cannot read the scripted replies ${file}`);
  }
  const replies = new Map<string, string>();
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new BenchmarkDataError(`not JSON: ${(error as Error).message}`, { file, line: index + 1 });
    }
    const { task_id: id, reply } = (row ?? {}) as { task_id?: unknown; reply?: unknown };
    if (typeof id !== "string" || typeof reply !== "string") throw new BenchmarkDataError('expected {"task_id": "…", "reply": "…"}', { file, line: index + 1 });
    replies.set(id, reply);
  });
  return replies;
}

function levelsOption(value: string | undefined): Set<number> | undefined {
  if (value === undefined) return undefined;
  const levels = value.split(",").map((part) => part.trim());
  if (levels.some((level) => !/^[1-9]\d*$/.test(level))) throw new UsageError(`bench gaia: --level expects levels such as 1 or 1,2; got ${JSON.stringify(value)}`);
  return new Set(levels.map(Number));
}

const percent = (value: number | null): string => (value === null ? "n/a" : `${(value * 100).toFixed(1)}%`);

function render(summary: GaiaSummary, metadataFile: string): string {
  const lines = [`GAIA ${summary.split} (${metadataFile}): ${summary.entries} tasks`];
  for (const level of summary.levels) lines.push(`  level ${level.level}: ${level.correct}/${level.entries} correct (${percent(level.accuracy)})`);
  lines.push(`  overall: ${summary.correct}/${summary.entries - summary.unscored} correct (${percent(summary.accuracy)})${summary.errors ? `, ${summary.errors} could not be asked (counted wrong)` : ""}`);
  if (summary.unscored) lines.push(`  ${summary.unscored} unscored: the ${summary.split} split's answers are private`);
  for (const problem of summary.dataProblems) lines.push(`  skipped row: ${problem}`);
  return `${lines.join("\n")}\n`;
}

function check(argv: string[], io: CliIO): ExitCode {
  const [file, ...extra] = argv;
  if (!file || extra.length) throw new UsageError("bench gaia check: give one file of scorer cases, e.g. retrace bench gaia check cases.jsonl");
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), "utf8");
  } catch {
    throw new UsageError(`bench gaia check: cannot read ${file}`);
  }
  const counts = { rows: 0, correct: 0, agree: 0, disagree: 0, errors: 0 };
  const out: string[] = [];
  let index = 0;
  text.split("\n").forEach((line, at) => {
    if (line.trim() === "") return;
    const row = index++;
    counts.rows++;
    let parsed: { model_answer?: unknown; ground_truth?: unknown; expected?: unknown };
    try {
      parsed = (JSON.parse(line) ?? {}) as typeof parsed;
    } catch (error) {
      counts.errors++;
      io.stderr(`${new BenchmarkDataError(`not JSON: ${(error as Error).message}`, { file, line: at + 1 }).describe()}\n`);
      out.push(JSON.stringify({ index: row, error: "not JSON" }));
      return;
    }
    const answer = parsed.model_answer;
    if ((typeof answer !== "string" && answer !== null) || typeof parsed.ground_truth !== "string") {
      counts.errors++;
      io.stderr(`${new BenchmarkDataError('expected "model_answer" (text or null) and "ground_truth" (text)', { file, line: at + 1 }).describe()}\n`);
      out.push(JSON.stringify({ index: row, error: "malformed row" }));
      return;
    }
    const { correct } = scoreGaia(answer, parsed.ground_truth);
    if (correct) counts.correct++;
    if (typeof parsed.expected === "boolean") counts[parsed.expected === correct ? "agree" : "disagree"]++;
    out.push(JSON.stringify({ index: row, correct }));
  });
  out.push(JSON.stringify({ summary: counts }));
  io.stdout(`${out.join("\n")}\n`);
  return counts.disagree || counts.errors ? ExitCode.failed : ExitCode.ok;
}

export async function benchGaiaCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  if (argv[0] === "check") return check(argv.slice(1), io);
  const { values, positionals } = parseCommandArgs("bench gaia", argv, {
    data: { type: "string" },
    model: { type: "string" },
    "base-url": { type: "string" },
    split: { type: "string", default: "validation" },
    level: { type: "string" },
    limit: { type: "string" },
    concurrency: { type: "string" },
    output: { type: "string", short: "o" },
    json: { type: "boolean", default: false },
    ...CASSETTE_FLAGS,
  });
  if (positionals.length) throw new UsageError(`bench gaia: unexpected ${JSON.stringify(positionals[0])}; see retrace bench gaia --help`);
  if (!values.data) throw new UsageError("bench gaia: --data <dir> is required (the folder holding 2023/<split>/metadata.jsonl)");
  const choice = parseModelChoice("bench gaia", values.model, values["base-url"]);
  const limit = wholeNumber("limit", values.limit);
  const concurrency = wholeNumber("concurrency", values.concurrency);
  const levels = levelsOption(values.level);
  const model: GaiaModel = choice.kind === "scripted" ? { kind: "scripted", file: choice.file, replies: readReplies(io.cwd, choice.file) } : choice;
  const cassette = cassetteFlags("bench gaia", values, io.cwd);
  if (cassette && model.kind === "scripted") throw new UsageError("bench gaia: --record/--replay record a provider's traffic; scripted replies need none");
  if (cassette && cassette.location === undefined) throw new UsageError("bench gaia: --cassette-mode and --timing need --record <dir> or --replay <dir>");
  const cassettes =
    cassette?.location !== undefined && cassette.mode !== "live"
      ? await taskCassettes(cassette.location, cassette.mode ?? "replay", cassette.timing, io, argv)
      : undefined;
  const data = loadGaia(resolve(io.cwd, values.data), values.split);
  const picked = data.tasks.filter((task) => !levels || levels.has(task.level));
  const selected = { ...data, tasks: limit === undefined ? picked : picked.slice(0, limit) };
  for (const problem of data.problems) io.stderr(`warning: ${problem.describe()} (row skipped)\n`);
  const progress = io.isTTY && !values.json ? (done: number, total: number) => io.stderr(`\r${bar(done, total)} ${done}/${total}${done === total ? "\n" : ""}`) : undefined;
  const results: GaiaResult[] = await runGaia(selected, { model, env: io.env, ...(concurrency ? { concurrency } : {}), ...(cassettes ? { cassettes } : {}), ...(progress ? { onProgress: progress } : {}) });
  const summary = summariseGaia(selected, results);
  if (values.output) {
    const path = resolve(io.cwd, values.output);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, results.map((result) => `${JSON.stringify(result)}\n`).join(""));
  }
  io.stdout(values.json ? `${JSON.stringify(summary, null, 2)}\n` : render(summary, values.data));
  for (const result of results) if (result.status === "error" && !values.json) io.stderr(`task ${result.task_id}: ${result.error ?? "error"}\n`);
  return summary.errors ? ExitCode.failed : ExitCode.ok;
}

function bar(done: number, total: number): string {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${"#".repeat(filled)}${" ".repeat(width - filled)}]`;
}

/** One cassette per task, `<dir>/<task_id>.json`: tasks run concurrently, and each replays its own exchanges in order. */
async function taskCassettes(dir: string, mode: CassetteMode, timing: CassetteTiming | undefined, io: CliIO, argv: readonly string[]) {
  const { caseCassettes } = await import("../../eval/cassettes.js");
  const { safeFileName } = await import("../../cassette/index.js");
  const again = argv.filter((arg, i) => arg !== "--replay" && argv[i - 1] !== "--replay").map(shellWord).join(" ");
  return caseCassettes({
    mode,
    ...(timing !== undefined ? { timing } : {}),
    secrets: cassetteSecrets(undefined, io.env),
    fileFor: (planned) => join(dir, `${safeFileName(planned.case.name)}.json`),
    recordHint: () => `record it with: retrace bench gaia ${again} --record ${shellWord(dir)} (or --cassette-mode auto to record only what is missing)`,
  });
}
