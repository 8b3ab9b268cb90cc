// npm run bench:crash -- --trials N [--races N] [--concurrency N]: the crash harness at scale
// (test/durability/harness.ts), then resume latency for runs of 10 and 10,000 events.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { seededRandom } from "../src/context/index.js";
import { race, reference, trials, workspace } from "../test/durability/harness.js";
import { resumeLatency } from "./crash.js";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "100" },
    races: { type: "string", default: "20" },
    concurrency: { type: "string", default: "4" },
    seed: { type: "string" },
    "skip-latency": { type: "boolean", default: false },
  },
});
const count = Number(values.trials);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() >>> 0;
const ws = workspace("bench");
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

try {
  const ref = await reference(ws);
  console.log(`crash harness: ${count} trials (seed ${seed}), child spans run ${ref.spans.run.toFixed(0)} ms, resume ${ref.spans.resume.toFixed(0)} ms`);
  const results = await trials(ws, ref, count, Number(values.concurrency), seededRandom(seed));
  const correct = results.filter((result) => result.failures.length === 0);
  const kinds = new Map<string, number>();
  for (const result of results) for (const failure of result.failures) kinds.set(failure.split(":")[0] as string, (kinds.get(failure.split(":")[0] as string) ?? 0) + 1);
  const landed = new Map<string, number>();
  for (const result of results) landed.set(result.killed ? result.killedAfter : "(after exit)", (landed.get(result.killed ? result.killedAfter : "(after exit)") ?? 0) + 1);
  const decisions = results.flatMap((result) => result.decisions.map((decision) => decision.split(":")[1]));
  console.log(`trials: ${results.length}; correct resumes: ${correct.length}/${results.length}; killed mid-run: ${results.filter((result) => result.killed).length}`);
  console.log(`failures by kind: ${kinds.size ? [...kinds].map(([kind, n]) => `${kind} ${n}`).join(", ") : "none"}`);
  for (const result of results.filter((item) => item.failures.length).slice(0, 5)) console.log(`  ${result.runId} (killed after ${result.killedAfter}): ${result.failures.join("; ")}`);
  console.log(`where the kills landed (last event written): ${[...landed].sort((a, b) => b[1] - a[1]).map(([type, n]) => `${type} ${n}`).join(", ")}`);
  console.log(`unknown outcomes decided: rerun ${decisions.filter((d) => d === "rerun").length}, skip ${decisions.filter((d) => d === "skip").length}`);
  const firsts = results.flatMap((result) => (result.firstResumeMs === undefined ? [] : [result.firstResumeMs])).sort((a, b) => a - b);
  console.log(`first resume after a kill (in-process retrace resume, whole command): median ${percentile(firsts, 0.5).toFixed(1)} ms, p95 ${percentile(firsts, 0.95).toFixed(1)} ms`);

  const raceCount = Number(values.races);
  let exact = 0;
  let busy = 0;
  for (let index = 0; index < raceCount; index++) {
    const outcome = await race(ws, index);
    if (outcome.failures.length === 0 && outcome.proceeded === 1) exact++;
    else console.log(`  race ${index}: ${outcome.failures.join("; ")}`);
    busy += outcome.busy;
  }
  console.log(`races of two resumers: exactly one proceeded in ${exact}/${raceCount} (the other exited 4 "being executed by" in ${busy}, found nothing left in ${raceCount - busy})`);

  if (!values["skip-latency"]) for (const line of await resumeLatency(ws)) console.log(line);
} finally {
  rmSync(ws.dir, { recursive: true, force: true });
}
