/**
 * GAIA's scorer speed: 10,000 `question_scorer` calls, cycling the dev scorer cases (the same
 * inputs the official Python scorer was timed on: ~104,000 calls/s with CPython 3.11 on these
 * machines). Target: at least 5× that. Run: npm run bench -- gaia
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { scoreGaia } from "../src/benchmarks/gaia/index.js";

const OFFICIAL_PER_SECOND = 104_000;
const CALLS = 10_000;

export function benchGaia(): void {
  const file = join(import.meta.dirname, "../fixtures/gaia/scorer_cases.dev.jsonl");
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { model_answer: string; ground_truth: string; expected: boolean });
  const inputs = Array.from({ length: CALLS }, (_, i) => rows[i % rows.length] as (typeof rows)[number]);
  let agree = 0;
  const round = (): number => {
    const start = process.hrtime.bigint();
    agree = 0;
    for (const row of inputs) if (scoreGaia(row.model_answer, row.ground_truth).correct === row.expected) agree++;
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  for (let i = 0; i < 5; i++) round(); // warm-up: let the JIT compile the scorer
  const times = Array.from({ length: 15 }, round).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const perSecond = CALLS / (median / 1000);
  console.log(`gaia: ${CALLS} scorer calls (dev cases cycled, ${agree}/${CALLS} agree with the official verdicts)`);
  console.log(`  median ${median.toFixed(2)} ms -> ${Math.round(perSecond).toLocaleString("en-US")} calls/s`);
  console.log(`  ratio to the official Python scorer (${OFFICIAL_PER_SECOND.toLocaleString("en-US")} calls/s): ${(perSecond / OFFICIAL_PER_SECOND).toFixed(1)}x (target >= 5x)`);
}
