/**
 * `retrace bench bfcl`: runs BFCL's single-turn categories against a model and scores them as
 * the official checker does; `retrace bench bfcl check <cases.jsonl>` scores checker cases.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { withCassette } from "../../cassette/index.js";
import { BenchmarkDataError, UsageError } from "../../errors/index.js";
import { PROVIDER_KEY_VARIABLES } from "../../redaction/index.js";
import {
  ALL_CATEGORIES,
  categoryScores,
  checkCase,
  isMultiTurn,
  parseCheckerCase,
  resultLine,
  summarise,
  v4Category,
  type BfclMode,
  type CategoryScore,
  type EntryResult,
  type Summary,
} from "../../benchmarks/bfcl/index.js";
import { loadBfclData, runBfcl } from "../../eval/benchmarks/bfcl/index.js";
import { parseModelChoice, type ModelChoice } from "../../eval/benchmarks/model-choice.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { shellWord } from "../../text/index.js";

export const benchBfclHelp = `retrace bench bfcl --data <dir> --model <provider:model> [options]
retrace bench bfcl check <cases.jsonl>

Runs the Berkeley Function Calling Leaderboard's single-turn categories (V4 or V3 files:
BFCL_v4_<category>.json plus possible_answer/) and scores each entry as the official AST
checker does. Multi-turn categories are listed as not supported.

Options:
  --data <dir>           the folder with the BFCL_v4_*.json (or BFCL_v3_*.json) files
  --model <p:m>          openai:gpt-4o-mini, anthropic:claude-haiku-4-5, openai-compatible:<model>
                         (with --base-url), or scripted:<script.yaml> for tests
  --base-url <url>       where an openai or openai-compatible provider sends requests
  --mode <fc|prompt>     function calling (tools; default) or prompting (BFCL's system prompt)
  --categories <a,b>     only these categories (V4 names; V3's simple/java/javascript accepted)
  --limit <n>            the first n entries of each category
  --concurrency <n>      entries in flight at once (default 8)
  -o, --output <file>    the results file: one JSON line per entry (raw output, decoded calls,
                         verdict, error type)
  --record <dir>         record every model exchange to <dir>/bfcl-<mode>.cassette.json
  --replay <dir>         answer from that cassette: no key, no network
  --json                 the scores as one JSON object instead of a table

check <cases.jsonl>      scores self-contained checker cases; prints {"id","valid","error_type"}
                         per case, then one summary line
`;

const OPTIONS = {
  data: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  mode: { type: "string" },
  categories: { type: "string" },
  limit: { type: "string" },
  concurrency: { type: "string" },
  output: { type: "string", short: "o" },
  record: { type: "string" },
  replay: { type: "string" },
  json: { type: "boolean" },
} as const;

export async function benchBfclCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  if (argv[0] === "check") return checkCommand(argv.slice(1), io);
  const { values, positionals } = parseCommandArgs("bench bfcl", argv, OPTIONS);
  if (positionals.length) throw new UsageError(`bench bfcl: unexpected argument "${positionals[0]}"; see retrace bench bfcl --help`);
  if (!values.data) throw new UsageError("bench bfcl: --data <dir> is required");
  const mode = parseMode(values.mode);
  const limit = positiveInt("limit", values.limit);
  const concurrency = positiveInt("concurrency", values.concurrency) ?? 8;
  const categories = values.categories?.split(",").map((name) => v4Category(name.trim())).filter(Boolean);
  for (const category of categories ?? []) {
    if (!ALL_CATEGORIES.includes(category)) throw new UsageError(`bench bfcl: unknown category "${category}"; known: ${ALL_CATEGORIES.join(", ")}`);
  }
  const data = loadBfclData(resolve(io.cwd, values.data), { ...(categories ? { categories } : {}), cwd: io.cwd });
  for (const problem of data.problems) io.stderr(`${problem.file}:${problem.line}: ${problem.message}\n`);
  const entries = limit === undefined ? data.entries : limitPerCategory(data.entries, limit);
  const parsed = parseModelChoice("bench bfcl", values.model, values["base-url"]);
  const model: ModelChoice = parsed.kind === "scripted" ? { kind: "scripted", file: resolve(io.cwd, parsed.file) } : parsed;
  const cassette = cassetteChoice(values, mode, model, io);
  const progress = progressBar(io);
  const run = (): ReturnType<typeof runBfcl> =>
    runBfcl(entries, { model, mode, concurrency, env: cassette?.env ?? io.env, onEntryDone: progress.update });
  let outcome: Awaited<ReturnType<typeof runBfcl>>;
  try {
    outcome = cassette
      ? await withCassette(cassette.file, {
          mode: cassette.mode,
          secrets: cassette.secrets,
          recordHint: `record it with: retrace bench bfcl … --record ${shellWord(cassette.location)}`,
          onSummary: (summary) => {
            if (summary.mode === "replay" && summary.unused.length) io.stderr(`cassette ${summary.file}: ${summary.unused.length} recorded request(s) were not used\n`);
          },
        }, run)
      : await run();
  } finally {
    progress.done();
  }
  const results = outcome.results;
  for (const problem of outcome.problems) io.stderr(`${problem.file}:${problem.line}: ${problem.message}\n`);
  data.problems.push(...outcome.problems);
  if (values.output) writeFileSync(resolve(io.cwd, values.output), results.map((result) => resultLine(result) + "\n").join(""));
  const runCategories = data.categories.filter((category) => !isMultiTurn(category));
  const scores = categoryScores(results, runCategories);
  const unsupported = data.categories.filter(isMultiTurn).map((category) => ({ category, entries: entries.filter((entry) => entry.category === category).length }));
  const summary = summarise(scores);
  if (values.json) io.stdout(JSON.stringify({ version: data.version, mode, categories: scores, summary, not_supported: unsupported, data_problems: data.problems }) + "\n");
  else io.stdout(table(data.version, mode, scores, summary, unsupported, data.problems.length));
  return data.problems.length > 0 ? ExitCode.usage : ExitCode.ok;
}

function parseMode(text: string | undefined): BfclMode {
  if (text === undefined || text === "fc") return "fc";
  if (text === "prompt" || text === "prompting") return "prompt";
  throw new UsageError(`bench bfcl: --mode must be fc or prompt, got "${text}"`);
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text)) throw new UsageError(`bench bfcl: --${name} must be a positive whole number, got "${text}"`);
  return Number(text);
}

function limitPerCategory<T extends { category: string }>(entries: readonly T[], limit: number): T[] {
  const seen = new Map<string, number>();
  return entries.filter((entry) => {
    const count = seen.get(entry.category) ?? 0;
    seen.set(entry.category, count + 1);
    return count < limit;
  });
}

interface CassetteChoice {
  file: string;
  location: string;
  mode: "record" | "replay";
  secrets: Record<string, string | undefined>;
  /** The environment the run sees: a replay needs no key, so a placeholder stands in for one. */
  env: Readonly<Record<string, string | undefined>>;
}

function cassetteChoice(values: { record?: string | undefined; replay?: string | undefined }, mode: BfclMode, model: ModelChoice, io: CliIO): CassetteChoice | undefined {
  if (values.record !== undefined && values.replay !== undefined) throw new UsageError("bench bfcl: choose --record or --replay, not both");
  const location = values.record ?? values.replay;
  if (location === undefined) return undefined;
  if (location === "") throw new UsageError(`bench bfcl: --${values.record !== undefined ? "record" : "replay"} needs a folder`);
  if (model.kind === "scripted") throw new UsageError("bench bfcl: a scripted model answers from its script; --record/--replay are for a provider");
  const secrets: Record<string, string | undefined> = {};
  for (const name of PROVIDER_KEY_VARIABLES) secrets[name] = io.env[name];
  const replay = values.replay !== undefined;
  const keyVariable = model.llm.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  return {
    file: resolve(io.cwd, location, `bfcl-${mode}.cassette.json`),
    location,
    mode: replay ? "replay" : "record",
    secrets,
    env: replay && !io.env[keyVariable] ? { ...io.env, [keyVariable]: "retrace-cassette-replay" } : io.env,
  };
}

function progressBar(io: CliIO): { update: (done: number, total: number) => void; done: () => void } {
  if (!io.isTTY) return { update: () => undefined, done: () => undefined };
  let drawn = false;
  return {
    update: (done, total) => {
      const width = 30;
      const filled = total ? Math.round((done / total) * width) : width;
      io.stderr(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
      drawn = true;
    },
    done: () => {
      if (drawn) io.stderr("\n");
    },
  };
}

const percent = (value: number | null): string => (value === null ? "  n/a" : `${(value * 100).toFixed(2)}%`);

function table(version: number, mode: BfclMode, scores: readonly CategoryScore[], summary: Summary, unsupported: { category: string; entries: number }[], problems: number): string {
  const lines = [`BFCL (V${version} files, ${mode === "fc" ? "function calling" : "prompting"} mode)`, ""];
  const width = Math.max(24, ...scores.map((score) => score.category.length));
  for (const score of scores) lines.push(`  ${score.category.padEnd(width)} ${percent(score.accuracy).padStart(8)}  ${score.correct}/${score.total}`);
  for (const { category, entries } of unsupported) lines.push(`  ${category.padEnd(width)}  not supported (${entries} entries not run: multi-turn needs BFCL's simulated environments)`);
  lines.push(
    "",
    `  non-live AST (V4: mean of simple, multiple, parallel, parallel_multiple)  ${percent(summary.nonLiveAst)}`,
    `  non-live simple (mean of python, java, javascript)                      ${percent(summary.nonLiveSimple)}`,
    `  live (V4: weighted by entries over the live AST categories)             ${percent(summary.live)}`,
    `  irrelevance (mean of irrelevance, live_irrelevance)                     ${percent(summary.irrelevance)}`,
    `  relevance (live_relevance)                                              ${percent(summary.relevance)}`,
    `  overall (V4 formula: 10% non-live, 10% live, 10% irrelevance, 30% multi-turn, 40% agentic; not run = 0)  ${percent(summary.overallV4)}`,
  );
  if (problems) lines.push("", `  ${problems} bad data line(s), listed above, were left out`);
  return lines.join("\n") + "\n";
}

function checkCommand(argv: string[], io: CliIO): ExitCode {
  const { positionals } = parseCommandArgs("bench bfcl check", argv, {});
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError("bench bfcl check: give one cases file: retrace bench bfcl check <cases.jsonl>");
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), "utf8");
  } catch (error) {
    throw new BenchmarkDataError(`cannot read ${file}: ${(error as Error).message}`, { file });
  }
  let cases = 0;
  let valid = 0;
  let agree = 0;
  let withExpected = 0;
  let bad = 0;
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    let checkerCase;
    try {
      checkerCase = parseCheckerCase(line);
    } catch (error) {
      bad++;
      io.stderr(`${file}:${index + 1}: not a BFCL checker case: ${(error as Error).message}\n`);
      return;
    }
    let verdict;
    try {
      verdict = checkCase(checkerCase);
    } catch (error) {
      bad++;
      io.stderr(`${file}:${index + 1}: ${checkerCase.id}: the checker cannot score it: ${(error as Error).message}\n`);
      return;
    }
    cases++;
    if (verdict.valid) valid++;
    if (checkerCase.expectedValid !== undefined) {
      withExpected++;
      if (checkerCase.expectedValid === verdict.valid && (checkerCase.expectedErrorType ?? null) === verdict.errorType) agree++;
    }
    io.stdout(JSON.stringify({ id: checkerCase.id, valid: verdict.valid, error_type: verdict.errorType }) + "\n");
  });
  io.stdout(JSON.stringify({ summary: { cases, valid, invalid: cases - valid, with_expected: withExpected, agree_with_expected: agree, bad_lines: bad } }) + "\n");
  if (bad > 0) return ExitCode.usage;
  return agree === withExpected ? ExitCode.ok : ExitCode.failed;
}
