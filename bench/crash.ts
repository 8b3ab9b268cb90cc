// Resume latency for runs of 10 and 10,000 events, against reading and parsing those events.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { AgentRun } from "../src/agent/index.js";
import { buildAgent, loadConfig } from "../src/config/index.js";
import { createRunContext } from "../src/context/index.js";
import { ScriptedModel } from "../src/providers/scripted/index.js";
import { parseEvent } from "../src/journal/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { cli, fixture, type Workspace } from "../test/durability/harness.js";

/** CPU ms of this process: a busy machine inflates wall-clock time, much less the CPU a task takes. */
const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
/** Collects garbage between measurements (when run with --expose-gc), so one does not pay for the last one's. */
const settleHeap = () => (globalThis as { gc?: () => void }).gc?.();
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/**
 * A run of about `events` events (batches of `lookup` calls), cut before its last answer as a
 * kill would leave it; each sample resumes a fresh copy with `retrace resume` in this process.
 */
async function sample(
  ws: Workspace,
  events: number,
  samples: number,
): Promise<{ resume: number[]; library: number[]; libraryCpu: number[]; read: number[]; readCpu: number[]; actual: number }> {
  const perStep = events >= 1000 ? 100 : 1;
  const steps = Math.max(1, Math.round((events - 6) / (3 * perStep + 2)));
  const dir = join(ws.dir, `latency-${events}`);
  const responses = [
    ...Array.from({ length: steps }, (_, step) => ({
      tool_calls: Array.from({ length: perStep }, (_, n) => ({ id: `s${step}_${n}`, name: "lookup", arguments: { key: `k${n}` } })),
    })),
    { text: "done" },
  ];
  const { mkdirSync } = await import("node:fs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "script.yaml"), stringify({ responses }));
  writeFileSync(
    join(dir, "agent.yaml"),
    // The fixture's tool module, by absolute path: it must resolve retrace-agents and zod from the project.
    stringify({ name: "latency", llm: { provider: "scripted", script: "script.yaml" }, max_steps: steps + 2, tools: [{ module: join(fixture, "tools.mjs") }] }),
  );
  const db = join(dir, "full.db");
  const made = await cli(["run", join(dir, "agent.yaml"), "-m", "go", "--db", db, "--run-id", "big", "--json"], ws.dir);
  if (made.code !== 0) throw new Error(`building the ${events}-event run failed: ${made.stderr}`);
  const full = new SqliteRunStore(db);
  const bodies = full.readRaw("big");
  full.close();
  // Cut after the last step's start marker (a kill during the last model call): resume re-asks it and finishes.
  const cut = bodies.length - 2;
  const resume: number[] = [];
  const library: number[] = [];
  const libraryCpu: number[] = [];
  const read: number[] = [];
  const readCpu: number[] = [];
  // The resume itself, as the command does it once the agent is built: open the log (read,
  // check the chain, parse, fold), ask the interrupted step again, finish.
  const agent = await buildAgent(loadConfig(join(dir, "agent.yaml")), { mock: new ScriptedModel({ responses }, "script") });
  for (let index = 0; index < samples; index++) {
    const own = join(dir, `lib-${index}.db`);
    const store = new SqliteRunStore(own);
    store.appendRaw(bodies.slice(0, bodies.length - 2));
    store.close();
    const reopened = new SqliteRunStore(own);
    // The floor, on the same file just before: reading the rows and parsing each event, nothing else.
    settleHeap();
    let began = performance.now();
    let beganCpu = cpu();
    reopened.readRaw("big").forEach((body, at) => parseEvent(body, { runId: "big", seq: at + 1 }));
    readCpu.push(cpu() - beganCpu);
    read.push(performance.now() - began);
    settleHeap();
    began = performance.now();
    beganCpu = cpu();
    const outcome = await AgentRun.open(agent, "big", { store: reopened, context: createRunContext() }).resume({ mark: true });
    libraryCpu.push(cpu() - beganCpu);
    library.push(performance.now() - began);
    reopened.close();
    if (outcome.status !== "completed") throw new Error(`library resume ended ${outcome.status}`);
  }
  for (let index = 0; index < samples; index++) {
    const copy = join(dir, `cut-${index}.db`);
    const store = new SqliteRunStore(copy);
    store.appendRaw(bodies.slice(0, cut));
    store.close();
    const began = performance.now();
    const outcome = await cli(["resume", "big", "--db", copy, "--json"], ws.dir);
    resume.push(performance.now() - began);
    if (outcome.code !== 0) throw new Error(`resume failed: ${outcome.stderr}`);
  }
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  return { resume: sorted(resume), library: sorted(library), libraryCpu: sorted(libraryCpu), read: sorted(read), readCpu: sorted(readCpu), actual: cut };
}

export async function resumeLatency(ws: Workspace): Promise<string[]> {
  const lines: string[] = [];
  for (const [events, samples] of [
    [10, 30],
    [10_000, 7],
  ] as const) {
    const { resume, library, libraryCpu, read, readCpu, actual } = await sample(ws, events, samples);
    const ms = (sorted: number[]) => `median ${percentile(sorted, 0.5).toFixed(1)} ms, p95 ${percentile(sorted, 0.95).toFixed(1)} ms`;
    const ratio = (a: number[], b: number[]) => (percentile(a, 0.5) / percentile(b, 0.5)).toFixed(2);
    lines.push(
      `run of ${actual} events (${samples} samples):\n` +
        `  reading+parsing its events: wall ${ms(read)}; CPU median ${percentile(readCpu, 0.5).toFixed(1)} ms\n` +
        `  resume (open: read, chain check, parse, fold; the interrupted step; finish): wall ${ms(library)} = ${ratio(library, read)}× read; CPU median ${percentile(libraryCpu, 0.5).toFixed(1)} ms = ${ratio(libraryCpu, readCpu)}× read\n` +
        `  whole \`retrace resume\` command (plus loading config and the mock script): wall ${ms(resume)}`,
    );
  }
  return lines;
}
