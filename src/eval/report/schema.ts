/**
 * The eval report, format version 1: what `--reporter json=<file>` writes and what
 * `--baseline` and `retrace merge-reports` read. The console, JUnit and Markdown reporters
 * render this same object, and `summary.exitCode` is the exit code the CLI returns, so the
 * files and the process can never disagree. Documented in README.md ("Eval report").
 */
import { z } from "zod";
import { ErrorInfoSchema, UsageSchema } from "../../contracts/index.js";

export const REPORT_FORMAT = "retrace-eval-report";
export const REPORT_VERSION = 1;

export const AssertionResultSchema = z.object({
  /** The `t` method that recorded it: calledTool, check, judge, ... */
  assertion: z.string(),
  label: z.string(),
  scorer: z.string(),
  severity: z.enum(["gate", "soft"]),
  status: z.enum(["passed", "failed", "skipped"]),
  /** 0..1, null when skipped. */
  value: z.number().min(0).max(1).nullable(),
  reason: z.string(),
  details: z.unknown().optional(),
});

export const RunDigestSchema = z.object({
  status: z.enum(["new", "running", "waiting", "completed", "failed"]),
  turns: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  usage: UsageSchema,
  /** US dollars; null when the model's price is unknown. */
  cost: z.number().nonnegative().nullable(),
  /** The last turn's answer, clipped to 2,000 characters. */
  output: z.string(),
  error: ErrorInfoSchema.optional(),
});

export const AttemptResultSchema = z.object({
  /** 1-based; more than one with --repeat. */
  attempt: z.number().int().positive(),
  runId: z.string().nullable(),
  status: z.enum(["passed", "failed", "error"]),
  /** Mean of the non-skipped assertion values; null when every assertion was skipped. */
  score: z.number().min(0).max(1).nullable(),
  durationMs: z.number().nonnegative(),
  /** When it started, in ms after the suite's first case started: cases run concurrently, so durations overlap. */
  startedMs: z.number().nonnegative().optional(),
  assertions: z.array(AssertionResultSchema),
  /** Why the attempt failed beyond its assertions: a throw, a timeout, a network attempt under --mock, a script that ran out, ... */
  errors: z.array(z.string()),
  /**
   * Whether the attempt's verdict came from its assertions: false when it failed for another
   * reason (a throw, a timeout, a script that ran out, ...), so its score judges nothing and
   * is left out of the summary's score. A score below the threshold is still scored.
   */
  scored: z.boolean().optional(),
  /** Worth knowing, not failing: e.g. scripted responses the run never used. */
  notes: z.array(z.string()),
  run: RunDigestSchema.nullable(),
  /** Runs made by llm-judge scorers, in the same store as the case's run. */
  judgeRuns: z.array(z.string()),
});

export const CaseResultSchema = z.object({
  /** `<file> > <name>`: unique in a report, stable across runs. */
  id: z.string(),
  file: z.string(),
  name: z.string(),
  tags: z.array(z.string()),
  /** error: the case could not be set up (config, script, tool mocks); skipped: not run (--bail). */
  status: z.enum(["passed", "failed", "error", "skipped"]),
  score: z.number().min(0).max(1).nullable(),
  threshold: z.number().min(0).max(1),
  /** Share of attempts that passed; null when none ran. */
  passRate: z.number().min(0).max(1).nullable(),
  /** Some attempts passed and some failed (--repeat). */
  flaky: z.boolean(),
  attempts: z.array(AttemptResultSchema),
});

export const FileResultSchema = z.object({
  file: z.string(),
  cases: z.number().int().nonnegative(),
  /** The file could not be loaded; its cases did not run. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

const CaseChangeSchema = z.object({ id: z.string(), before: z.string(), after: z.string() });

export const ComparisonSchema = z.object({
  baseline: z.string(),
  /** Passed in the baseline, not now. */
  regressions: z.array(CaseChangeSchema),
  /** Failed in the baseline, passed now. */
  fixed: z.array(CaseChangeSchema),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  /** Cases whose score moved by at least 0.01. */
  scoreChanges: z.array(z.object({ id: z.string(), before: z.number().nullable(), after: z.number().nullable(), delta: z.number() })),
});

export const SummarySchema = z.object({
  cases: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  flaky: z.number().int().nonnegative(),
  /** Files that could not be loaded. */
  fileErrors: z.number().int().nonnegative(),
  /**
   * Mean of the scores of the cases that were scored: whose verdict came from their
   * assertions (a case that failed on an error, or whose every assertion was skipped, is left
   * out). Null when no case was scored. Not a pass rate: see passed and failed.
   */
  score: z.number().min(0).max(1).nullable(),
  /** How many cases the score averages. */
  scoredCases: z.number().int().nonnegative().optional(),
  durationMs: z.number().nonnegative(),
  /** 0 all passed, 1 a case failed, 2 a file, config or option could not be loaded. */
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]),
});

export const EvalReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  version: z.literal(REPORT_VERSION),
  /** The Retrace version that wrote it. */
  retrace: z.string(),
  mode: z.enum(["mock", "live"]),
  options: z.object({
    repeat: z.number().int().positive(),
    threshold: z.number().min(0).max(1),
    tags: z.array(z.string()),
    pattern: z.string().nullable(),
    timeoutMs: z.number().positive(),
    bail: z.number().int().nonnegative(),
    shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  }),
  summary: SummarySchema,
  /** Problems with the run as a whole (e.g. no case matched the filters). */
  errors: z.array(z.object({ code: z.string(), message: z.string() })),
  files: z.array(FileResultSchema),
  cases: z.array(CaseResultSchema),
  comparison: ComparisonSchema.optional(),
  /**
   * The run store that holds the cases' runs (`--keep-runs` under --mock, `--db` under --live),
   * as the command line named it: `retrace trace <runId> --db <runStore>` shows a case's run.
   * Null or absent: the runs were kept in memory only.
   */
  runStore: z.string().nullable().optional(),
  /** For a merged report: the reports it was merged from. */
  mergedFrom: z.array(z.string()).optional(),
});

export type AssertionResultData = z.infer<typeof AssertionResultSchema>;
export type RunDigest = z.infer<typeof RunDigestSchema>;
export type AttemptResult = z.infer<typeof AttemptResultSchema>;
export type CaseResult = z.infer<typeof CaseResultSchema>;
export type FileResult = z.infer<typeof FileResultSchema>;
export type Comparison = z.infer<typeof ComparisonSchema>;
export type EvalSummary = z.infer<typeof SummarySchema>;
export type EvalReport = z.infer<typeof EvalReportSchema>;
