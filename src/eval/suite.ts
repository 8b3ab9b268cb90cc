/**
 * An eval run from paths to report: load the files, pick the cases (tags, name pattern, shard),
 * run them, and build the report every reporter renders.
 */
import { resolve, sep } from "node:path";
import { EvalDefinitionError } from "../errors/index.js";
import { ownPackage } from "../package-info.js";
import type { RunStore } from "../contracts/index.js";
import type { RunContext } from "../context/index.js";
import { NetworkGuard, suiteScope, type SuiteScope } from "../sandbox/index.js";
import { loadEvalFiles, type LoadedFile } from "./loader/index.js";
import { caseSelector, compareReports, REPORT_FORMAT, REPORT_VERSION, summarise, type CaseResult, type EvalReport, type FileResult } from "./report/index.js";
import { DEFAULT_TIMEOUT_MS, runCases, watchUncaught, type CaseCassetteSeam, type PlannedCase, type RunCasesOptions } from "./runner/index.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** The runner's own options (documented on RunCasesOptions), plus what a suite adds: files, selection, reports. */
export interface SuiteOptions extends Pick<RunCasesOptions, "mode" | "concurrency" | "timeoutMs" | "repeat" | "bail" | "threshold"> {
  paths: readonly string[];
  cwd: string;
  /** Run cases with any of these tags; a tag written "!tag" excludes. */
  tags?: readonly string[];
  /** Run cases whose name (or `<file> > <name>`) matches this regular expression. */
  pattern?: string;
  shard?: Shard;
  env?: Readonly<Record<string, string | undefined>>;
  store?: RunStore;
  /** Under --mock: the store every case's runs are copied to (--keep-runs). */
  keep?: RunStore;
  /** The store's path as the user named it, for the report (--keep-runs, or --db under --live). */
  runStore?: string;
  liveContext?: () => RunContext;
  /** A report to compare with (already read). */
  baseline?: { file: string; report: EvalReport };
  /**
   * The suite's scope (what happens outside its cases is recorded there). A caller that keeps
   * it — and a guard and an uncaught-error watch on it — past the suite sees what leftover
   * timers do after the report. Default: a new one.
   */
  scope?: SuiteScope;
  /** Each file once loaded, with those of its cases that will run; called for every file before any case runs. */
  onFileLoaded?: (file: LoadedFile, planned: readonly PlannedCase[]) => void;
  onCaseDone?: (result: CaseResult, done: number, total: number) => void;
  /** Under --live: one cassette per case (see eval/cassettes.ts). */
  cassettes?: CaseCassetteSeam;
  /** The network is refused as under --mock, though the providers are live (a --replay, answered by cassettes). */
  offline?: boolean;
}

export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new EvalDefinitionError(`--shard ${text}: expected i/n with 1 <= i <= n, e.g. --shard 1/3`);
  }
  return { index, count };
}

/** Picks cases by tags and name pattern, in file order then definition order. */
export function selectCases(files: readonly LoadedFile[], options: Pick<SuiteOptions, "tags" | "pattern">): PlannedCase[] {
  const select = caseFilter(options);
  return files.flatMap(select);
}

function caseFilter(options: Pick<SuiteOptions, "tags" | "pattern">): (file: LoadedFile) => PlannedCase[] {
  const selects = caseSelector(options);
  return (file) => {
    const planned: PlannedCase[] = [];
    for (const definition of file.cases) {
      const id = `${file.file} > ${definition.name}`;
      if (!selects({ id, name: definition.name, tags: definition.tags ?? [] })) continue;
      planned.push({ id, file: file.file, case: definition });
    }
    return planned;
  };
}

/** Round-robin over the selected cases in a stable order, so shards get equal shares. */
export function shardCases(cases: readonly PlannedCase[], shard: Shard | undefined): PlannedCase[] {
  if (!shard || shard.count === 1) return [...cases];
  return cases.filter((_, index) => index % shard.count === shard.index - 1);
}

export async function runEvalSuite(options: SuiteOptions): Promise<EvalReport> {
  const started = performance.now();
  const offline = options.mode === "mock" || options.offline === true;
  const scope = options.scope ?? suiteScope(offline);
  // Under --mock (and --replay) nothing may reach the network, from the moment eval files load.
  const guard = offline ? new NetworkGuard(scope) : undefined;
  guard?.install();
  // An error thrown by an eval file's own code and never handled (say, a timer its top level
  // set) is reported, not left to end the process with a code the report does not show.
  const unwatch = watchUncaught(scope);
  try {
    // Loading runs outside the scope's storage (entering it early would slow every import by
    // the async hooks it turns on); what an eval file's top level does reaches every watched
    // suite, this one included.
    return await runGuarded(options, started, scope, guard);
  } finally {
    unwatch();
    guard?.uninstall();
  }
}

async function runGuarded(options: SuiteOptions, started: number, scope: SuiteScope, guard: NetworkGuard | undefined): Promise<EvalReport> {
  const select = caseFilter(options);
  const loaded = await loadEvalFiles(options.paths, options.cwd, { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  let selected = 0;
  const planned: PlannedCase[] = [];
  for (const file of loaded) {
    const picked = select(file);
    const shard = options.shard;
    const mine = shard && shard.count > 1 ? picked.filter((_, index) => (selected + index) % shard.count === shard.index - 1) : picked;
    selected += picked.length;
    options.onFileLoaded?.(file, mine);
    planned.push(...mine);
  }
  // Loading every file before running any case measured faster than interleaving the two.
  const cases = await runCases(planned, {
    mode: options.mode,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.repeat !== undefined ? { repeat: options.repeat } : {}),
    ...(options.bail !== undefined ? { bail: options.bail } : {}),
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.keep ? { keep: options.keep } : {}),
    ...(options.liveContext ? { liveContext: options.liveContext } : {}),
    ...(options.onCaseDone ? { onCaseDone: options.onCaseDone } : {}),
    ...(guard ? { guard } : {}),
    ...(options.cassettes ? { cassettes: options.cassettes } : {}),
    scope,
  });
  const errors: { code: string; message: string }[] = [];
  if (loaded.some((file) => file.cases.length > 0) && selected === 0 && (options.tags?.length || options.pattern !== undefined)) {
    errors.push({
      code: "eval_no_match",
      message: `no case matches${options.tags?.length ? ` --tags ${options.tags.join(",")}` : ""}${options.pattern !== undefined ? ` -t ${options.pattern}` : ""}`,
    });
  }
  for (const target of scope.stray) {
    // Outside every case (an eval file's top level, a timer no case owns, a case's leftover timer): the run as a whole fails.
    errors.push({ code: "network_blocked", message: `network request under --mock outside any case: ${target}` });
  }
  for (const error of scope.errors) {
    errors.push({ code: "uncaught_error", message: `an error outside any case was never handled: ${error}` });
  }
  const files: FileResult[] = loaded.map((file) => ({ file: file.file, cases: file.cases.length, ...(file.error ? { error: file.error } : {}) }));
  const report: EvalReport = {
    format: REPORT_FORMAT,
    version: REPORT_VERSION,
    retrace: ownPackage().version,
    mode: options.mode,
    options: {
      repeat: options.repeat ?? 1,
      threshold: options.threshold ?? 0,
      tags: [...(options.tags ?? [])],
      pattern: options.pattern ?? null,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      bail: options.bail ?? 0,
      shard: options.shard ?? null,
    },
    summary: summarise(cases, files, errors, performance.now() - started),
    errors,
    files,
    cases,
    runStore: options.runStore ?? null,
  };
  if (options.baseline) {
    // Only the baseline's cases this run selected are compared: a case filtered out by --tags,
    // -t or the paths, or run by another shard, is neither "removed" nor anything else.
    const defined = new Set(loaded.flatMap((file) => file.cases.map((definition) => `${file.file} > ${definition.name}`)));
    const ran = new Set(cases.map((result) => result.id));
    const loadedFiles = new Set(loaded.map((file) => file.file));
    const broken = new Set(loaded.filter((file) => file.error).map((file) => file.file));
    const roots = options.paths.map((path) => resolve(options.cwd, path));
    const selects = caseSelector(options);
    const inScope = (result: CaseResult): boolean => {
      if (ran.has(result.id)) return true;
      // Not run now. It was removed if nothing defines it any more and this run would have selected it.
      if (options.shard && options.shard.count > 1) return false;
      if (defined.has(result.id) || broken.has(result.file) || !selects(result)) return false;
      const path = resolve(options.cwd, result.file);
      return loadedFiles.has(result.file) || roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
    };
    const baseline = { ...options.baseline.report, cases: options.baseline.report.cases.filter(inScope) };
    report.comparison = compareReports(baseline, cases, options.baseline.file);
  }
  return report;
}

