/**
 * The eval runner's cost, start-up included: a generated mock suite (each case two model turns
 * and a calculator call, two assertions) run through the real CLI in a child process, as CI
 * would run it: `node bin/retrace.js eval-test <dir> --mock`.
 *
 * Run: npm run bench -- eval      (BENCH_RUNS=5 runs per suite, BENCH_CASES=1000)
 * Reports wall time (spawn to exit), cases per second and the CLI process's peak RSS (read by
 * a probe loaded with --import, from process.resourceUsage().maxRSS as the process exits).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeEvalSuite } from "./eval-suite.js";

const root = resolve(import.meta.dirname, "..");

interface Sample {
  ms: number;
  rssMiB: number;
  code: number;
  summary: string;
}

function runCli(dir: string): Promise<Sample> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ["--import", join(root, "bench/eval-probe.mjs"), join(root, "bin/retrace.js"), "eval-test", dir, "--mock"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const rss = /__retrace_bench_max_rss_kib (\d+)/.exec(stderr);
      if (!rss) return fail(new Error(`no memory figure from the CLI; stderr:\n${stderr}`));
      const summary = /Cases\s+(.*)/.exec(stdout)?.[1] ?? stdout.slice(-300);
      done({ ms, rssMiB: Number(rss[1]) / 1024, code: code ?? -1, summary });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function measure(label: string, cases: number, runs: number, targets: { ms: number; mib?: number }): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-eval-"));
  try {
    writeEvalSuite(dir, cases);
    const samples: Sample[] = [];
    for (let i = 0; i < runs; i++) samples.push(await runCli(dir));
    const bad = samples.find((sample) => sample.code !== 0);
    if (bad) throw new Error(`the suite did not pass (exit ${bad.code}): ${bad.summary}`);
    const ms = median(samples.map((sample) => sample.ms));
    const best = Math.min(...samples.map((sample) => sample.ms));
    const mib = Math.max(...samples.map((sample) => sample.rssMiB));
    const ok = ms <= targets.ms && (targets.mib === undefined || mib <= targets.mib);
    console.log(`${label}: ${cases} case(s) in ${Math.ceil(cases / 50)} file(s), ${runs} runs of \`node bin/retrace.js eval-test <dir> --mock\``);
    console.log(`  wall time   median ${ms.toFixed(0)} ms, best ${best.toFixed(0)} ms   (runs: ${samples.map((sample) => sample.ms.toFixed(0)).join(", ")})`);
    console.log(`  throughput  ${((cases * 1000) / ms).toFixed(0)} cases/s (median run, start-up included)`);
    console.log(`  peak RSS    ${mib.toFixed(1)} MiB (largest of the runs)`);
    console.log(`  result      ${samples[0]?.summary}`);
    console.log(`  target      under ${targets.ms} ms${targets.mib ? ` and ${targets.mib} MiB` : ""}: ${ok ? "met" : "MISSED"}`);
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchEval(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const cases = Number(process.env.BENCH_CASES ?? 1000);
  await measure("eval (1,000-case suite)", cases, runs, { ms: 700, mib: 140 });
  await measure("eval (1-case suite)", 1, runs, { ms: 500 });
}
