/**
 * Start-up and per-case speed, whole process, each figure a ratio against a floor measured in
 * the same run: the command and its floor alternate (A B A B …) and the figure is the median of
 * the per-pair ratios, so the machine's load — which moves both — cancels out.
 *
 *   anchor, 1,000 cases   `retrace eval-test <dir> --mock` on the outside workload
 *                         (/work/shared/bench/anchor-eval/gen.mjs: one scripted answer and two
 *                         checks per case, one file) vs vitest on the matching 1,000-test file
 *   anchor, 1 case        the same with one case vs vitest's 1-test file (cold: a new process)
 *   --help                `retrace --help` vs `node -e 0`
 *   run --mock            the quickstart, `retrace run examples/hello/agent.yaml … --mock …`
 *   scaling               10,000 cases vs 1,000, time and peak RSS
 *
 * Run: npm run bench -- eval     (BENCH_RUNS=7 pairs per comparison; BENCH_ANCHOR=<gen.mjs>)
 * Peak RSS is the CLI process's own (process.resourceUsage().maxRSS as it exits, from a probe
 * loaded with --import); vitest's is the largest of its processes (it runs tests in a fork).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "bin/retrace.js");
const probe = join(root, "bench/eval-probe.mjs");
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const anchor = process.env.BENCH_ANCHOR ?? "/work/shared/bench/anchor-eval/gen.mjs";

interface Sample {
  ms: number;
  rssMiB: number;
}

/** Runs `node <args>` in `cwd` to its end: wall time from spawn to exit, and the peak RSS the probe reports. */
function run(args: string[], cwd: string, expect: RegExp): Promise<Sample> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMPDIR: tmpdir(), NO_COLOR: "1", NODE_OPTIONS: `--import=${probe}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0 || !expect.test(stdout)) return fail(new Error(`node ${args.join(" ")} (in ${cwd}) exited ${code}:\n${stdout.slice(-800)}\n${stderr.slice(-800)}`));
      const rss = [...stderr.matchAll(/__retrace_bench_max_rss_kib (\d+)/g)].map((found) => Number(found[1]));
      done({ ms, rssMiB: Math.max(0, ...rss) / 1024 });
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

type Command = { label: string; args: string[]; cwd: string; expect: RegExp };

interface Paired {
  a: Sample[];
  b: Sample[];
  ratio: number;
}

/** `pairs` runs of A then B (after one unmeasured warm-up of each: the file cache, not Retrace, is what the first run would measure). */
async function paired(a: Command, b: Command, pairs: number): Promise<Paired> {
  await run(a.args, a.cwd, a.expect);
  await run(b.args, b.cwd, b.expect);
  const as: Sample[] = [];
  const bs: Sample[] = [];
  for (let i = 0; i < pairs; i++) {
    as.push(await run(a.args, a.cwd, a.expect));
    bs.push(await run(b.args, b.cwd, b.expect));
  }
  return { a: as, b: bs, ratio: median(as.map((sample, i) => sample.ms / (bs[i] as Sample).ms)) };
}

const ms = (samples: Sample[]): string => `${median(samples.map((sample) => sample.ms)).toFixed(0)} ms`;
const peaks = (samples: Sample[]): string => samples.map((sample) => sample.rssMiB.toFixed(0)).join(", ");
const mib = (samples: Sample[]): string => `${Math.max(...samples.map((sample) => sample.rssMiB)).toFixed(1)} MiB`;

function print(title: string, result: Paired, target: { ratio: number } | undefined, extra: string[] = []): boolean {
  const met = target === undefined || result.ratio <= target.ratio;
  console.log(title);
  console.log(`  ratio       ${result.ratio.toFixed(3)}× (median of ${result.a.length} paired ratios: ${result.a.map((sample, i) => (sample.ms / (result.b[i] as Sample).ms).toFixed(2)).join(", ")})`);
  console.log(`  retrace     median ${ms(result.a)}, peak RSS ${mib(result.a)}`);
  console.log(`  floor       median ${ms(result.b)}, peak RSS ${mib(result.b)}`);
  for (const line of extra) console.log(`  ${line}`);
  if (target) console.log(`  target      at most ${target.ratio}×: ${met ? "met" : "MISSED"}`);
  return met;
}

function generate(dir: string, cases: number, forVitest: boolean): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [anchor, ...(forVitest ? ["--vitest"] : []), dir, String(cases)], { stdio: "ignore" });
    child.on("error", fail);
    child.on("close", (code) => (code === 0 ? done() : fail(new Error(`${anchor} exited ${code}`))));
  });
}

export async function benchEval(): Promise<void> {
  if (!existsSync(anchor)) throw new Error(`the anchor workload is not at ${anchor} (set BENCH_ANCHOR)`);
  const pairs = Number(process.env.BENCH_RUNS ?? 7);
  const work = mkdtempSync(join(tmpdir(), "retrace-bench-eval-"));
  const results: boolean[] = [];
  try {
    const dirs = { r1: join(work, "r1"), r1k: join(work, "r1k"), r10k: join(work, "r10k"), v1: join(work, "v1"), v1k: join(work, "v1k"), quick: join(work, "quick") };
    await Promise.all([generate(dirs.r1, 1, false), generate(dirs.r1k, 1000, false), generate(dirs.r10k, 10_000, false), generate(dirs.v1, 1, true), generate(dirs.v1k, 1000, true)]);
    const evalTest = (dir: string, cases: number): Command => ({ label: `eval-test ${cases}`, args: [bin, "eval-test", ".", "--mock"], cwd: dir, expect: new RegExp(`${cases} passed`) });
    const vitestRun = (dir: string, tests: number): Command => ({ label: `vitest ${tests}`, args: [vitest, "run"], cwd: dir, expect: new RegExp(`Tests\\s+\\S*${tests} passed`) });
    console.log(`eval speed: ${pairs} pairs per comparison, A B A B … after one warm-up each; Node ${process.version}; anchor ${anchor}\n`);

    const thousand = await paired(evalTest(dirs.r1k, 1000), vitestRun(dirs.v1k, 1000), pairs);
    results.push(print("anchor workload, 1,000 cases (1 file) vs vitest's 1,000-test file", thousand, { ratio: 0.35 }));

    const one = await paired(evalTest(dirs.r1, 1), vitestRun(dirs.v1, 1), pairs);
    results.push(print("anchor workload, 1 case, cold vs vitest's 1-test file", one, { ratio: 0.3 }));

    const nodeFloor: Command = { label: "node -e 0", args: ["-e", "0"], cwd: work, expect: /^/ };
    const help = await paired({ label: "--help", args: [bin, "--help"], cwd: work, expect: /Usage: retrace/ }, nodeFloor, pairs);
    results.push(print("retrace --help vs node -e 0", help, { ratio: 1.8 }));

    const quickstart: Command = {
      label: "run --mock",
      args: [bin, "run", join(root, "examples/hello/agent.yaml"), "-m", "What is 2 + 2?", "--mock", join(root, "examples/hello/mock.yaml"), "--db", join(dirs.quick, "runs.db")],
      cwd: work,
      expect: /\S/,
    };
    await import("node:fs").then((fs) => fs.mkdirSync(dirs.quick, { recursive: true }));
    const quick = await paired(quickstart, nodeFloor, pairs);
    const quickMs = median(quick.a.map((sample) => sample.ms));
    const quickMet = quickMs < 150;
    results.push(quickMet);
    print("retrace run --mock (quickstart) vs node -e 0", quick, undefined, [`target      under 150 ms: ${quickMs.toFixed(0)} ms, ${quickMet ? "met" : "MISSED"}`]);

    const scalePairs = Math.max(3, Math.ceil(pairs / 2));
    const scale = await paired(evalTest(dirs.r10k, 10_000), evalTest(dirs.r1k, 1000), scalePairs);
    const rss10k = Math.max(...scale.a.map((sample) => sample.rssMiB));
    const rss1k = Math.max(...scale.b.map((sample) => sample.rssMiB));
    const rssMet = rss10k <= 2 * rss1k;
    results.push(rssMet);
    results.push(
      print("scaling: 10,000 cases vs 1,000 (anchor workload)", scale, { ratio: 8 }, [
        `peak RSS    ${(rss10k / rss1k).toFixed(2)}× (${rss10k.toFixed(1)} vs ${rss1k.toFixed(1)} MiB, the largest run of each); target at most 2×: ${rssMet ? "met" : "MISSED"}`,
        // Each run's own peak: one run far above the others is the allocator's or the GC's timing
        // (README, "Peak RSS at 10,000 cases"), and the verdict above still counts it.
        `each run    10,000: ${peaks(scale.a)}; 1,000: ${peaks(scale.b)} MiB`,
        `per case    ${((median(scale.a.map((s) => s.ms)) - median(scale.b.map((s) => s.ms))) / 9).toFixed(1)} µs (the 9,000 cases' difference)`,
      ]),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`\n${results.filter(Boolean).length} of ${results.length} targets met`);
}
