/**
 * Bundles' cost, for a run of about 1,000 events: capture (read the log, pack, gzip) and
 * replay (load and verify, re-run the agent on the recording, compare), each against a floor
 * measured in the same process — gzip of the run's events.jsonl for capture, gunzip plus
 * JSON.parse of every line for replay. Targets: capture at most 3×, replay at most 5× the floor.
 * Each figure is the median of BENCH_REPEAT samples after one untimed call (warm code).
 * Run: npm run bench -- bundle   (BENCH_EVENTS overrides the size, BENCH_REPEAT the repetitions)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { AgentRun } from "../src/agent/index.js";
import { captureRun, loadBundle } from "../src/bundle/index.js";
import { buildAgent, loadConfig } from "../src/config/index.js";
import { createRunContext, manualClock, sequentialIds } from "../src/context/index.js";
import { replayBundle } from "../src/replay/index.js";
import { SqliteRunStore } from "../src/store/index.js";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** CPU time (user + system, all threads) of the last `timed` call's median sample: on a busy machine it leaves out the time spent waiting for a core. */
const cpuOf = new Map<number, number>();

/** The untimed first call of each `timed` measurement: the code's first run in the process, before the JIT has compiled it. */
const firstOf = new Map<number, number>();

async function timed(repeat: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  const cpu: number[] = [];
  // One call first, not counted: every measurement (floors too) is of warm code, as the median
  // of a few samples would otherwise be of code still being compiled (the agent loop's first
  // replays in a process take twice their later time).
  const coldStart = process.hrtime.bigint();
  await fn();
  const cold = Number(process.hrtime.bigint() - coldStart) / 1e6;
  for (let i = 0; i < repeat; i++) {
    const start = process.hrtime.bigint();
    const used = process.cpuUsage();
    await fn();
    const spent = process.cpuUsage(used);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    cpu.push((spent.user + spent.system) / 1000);
  }
  const wall = median(samples);
  cpuOf.set(wall, median(cpu));
  firstOf.set(wall, cold);
  return wall;
}

export async function benchBundle(): Promise<void> {
  const target = Number(process.env.BENCH_EVENTS ?? 1000);
  const repeat = Number(process.env.BENCH_REPEAT ?? 7);
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-bundle-"));
  try {
    // One run, one turn, many steps: each calculator step logs five events.
    const steps = Math.max(1, Math.round((target - 5) / 5));
    const responses = [
      ...Array.from({ length: steps }, (_, index) => `  - tool_calls:\n      - name: calculator\n        arguments: { expression: "${index} * 17 + 4" }\n    usage: { input_tokens: 400, output_tokens: 20 }\n`),
      "  - text: The sums are done.\n",
    ];
    writeFileSync(join(dir, "mock.yaml"), `responses:\n${responses.join("")}`);
    writeFileSync(join(dir, "agent.yaml"), `name: bench\nsystem_prompt: ${"You are a careful assistant. Use the calculator for arithmetic. ".repeat(6)}\nmax_steps: ${steps + 2}\nllm:\n  provider: openai\ntools:\n  - calculator\n`);
    const agent = await buildAgent(loadConfig(join(dir, "agent.yaml"), {}), { env: {}, mock: join(dir, "mock.yaml") });
    const store = new SqliteRunStore(join(dir, "runs.db"));
    const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 3), ids: sequentialIds("bench_") });
    const run = AgentRun.start(agent, { store, context, source: { config: "agent.yaml", mock: "mock.yaml" } });
    const runStart = process.hrtime.bigint();
    await run.send("Compute every sum, one at a time.");
    const runMs = Number(process.hrtime.bigint() - runStart) / 1e6;
    const lines = store.readRaw(run.runId);
    const jsonl = Buffer.from(lines.map((line) => `${line}\n`).join(""), "utf8");
    const gzipped = gzipSync(jsonl);

    const options = { store, runId: run.runId, config: join(dir, "agent.yaml"), mock: join(dir, "mock.yaml") };
    const captureFloor = await timed(repeat, () => gzipSync(Buffer.from(store.readRaw(run.runId).map((line) => `${line}\n`).join(""), "utf8")));
    const capture = await timed(repeat, () => captureRun(options));
    const bytes = captureRun(options).bytes;
    const replayFloor = await timed(repeat, () => {
      for (const line of gunzipSync(gzipped).toString("utf8").split("\n")) if (line) JSON.parse(line);
    });
    let status = "";
    const load = await timed(repeat, () => loadBundle(bytes));
    const replay = await timed(repeat, async () => {
      status = (await replayBundle(await loadBundle(bytes), { env: {} })).status;
    });
    store.close();
    if (status !== "identical") throw new Error(`the benchmark's replay was not identical (${status})`);

    const ratio = (value: number, floor: number) => value / floor;
    const line = (name: string, value: number, floor: number, limit: number) =>
      `${name.padEnd(8)} ${value.toFixed(2).padStart(8)} ms   floor ${floor.toFixed(2).padStart(7)} ms   ratio ${ratio(value, floor).toFixed(2).padStart(6)}×   target ≤ ${limit}×  ${ratio(value, floor) <= limit ? "met" : "NOT MET"}`;
    console.log(`bundle: one run of ${lines.length} events (${jsonl.length} bytes of events.jsonl, bundle ${bytes.length} bytes), median of ${repeat}`);
    console.log(line("capture", capture, captureFloor, 3));
    console.log(line("replay", replay, replayFloor, 5));
    // The same ratios in CPU time: the wall-clock ones move with how busy the machine is (other
    // jobs on its cores); these mostly do not. Garbage collection on helper threads counts here.
    const cpu = (value: number) => cpuOf.get(value) ?? Number.NaN;
    console.log(`  in CPU time: capture ${(cpu(capture) / cpu(captureFloor)).toFixed(2)}×, replay ${(cpu(replay) / cpu(replayFloor)).toFixed(2)}× (medians ${cpu(capture).toFixed(1)}/${cpu(captureFloor).toFixed(1)} and ${cpu(replay).toFixed(1)}/${cpu(replayFloor).toFixed(1)} ms)`);
    // Context for the replay ratio: most of a replay is the agent loop running again (logging,
    // redaction, request keys), which the recorded run paid too; loading and verifying is the rest.
    console.log(`  the first (untimed) replay in this process took ${(firstOf.get(replay) ?? Number.NaN).toFixed(2)} ms`);
    console.log(`  of which load and verify ${load.toFixed(2)} ms; the recorded run itself took ${runMs.toFixed(2)} ms (one run, scripted model)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
