/**
 * The journal's cost: appending N realistic events through SqliteRunStore versus inserting
 * the same rows with raw better-sqlite3 (same pragmas, same table, same process).
 * Run: npm run bench -- journal   (N defaults to 20000; BENCH_EVENTS overrides)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { AgentRun } from "../src/agent/index.js";
import { createRunContext, manualClock, sequentialIds } from "../src/context/index.js";
import type { RunEvent } from "../src/contracts/index.js";
import { checkEvents } from "../src/journal/index.js";
import { MemoryRunStore, SqliteRunStore } from "../src/store/index.js";
import { CHAIN_START, chainLink } from "../src/store/chain.js";
import { ScriptedModel } from "../src/providers/scripted/index.js";
import { calculatorTool } from "../src/tools/builtin/index.js";

async function realisticEvents(count: number): Promise<RunEvent[]> {
  // Real agent runs: a system prompt, a question, a calculator call and an answer, each
  // LLM event carrying the full request and response.
  const memory = new MemoryRunStore();
  const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 3), ids: sequentialIds("bench_") });
  const events: RunEvent[] = [];
  while (events.length < count) {
    const model = new ScriptedModel({
      responses: [
        { tool_calls: [{ name: "calculator", arguments: { expression: "(17 * 23) + 4" } }], usage: { input_tokens: 412, output_tokens: 21 } },
        { text: "The answer is 395. I used the calculator to multiply 17 by 23 and add 4.", usage: { input_tokens: 470, output_tokens: 19 } },
      ],
    });
    const agent = {
      name: "bench",
      system: "You are a careful assistant. Use the calculator for arithmetic. ".repeat(6),
      maxSteps: 4,
      model,
      tools: [calculatorTool()],
    };
    const run = AgentRun.start(agent, { store: memory, context });
    await run.send("What is 17 times 23, plus 4? Please show the steps you took.");
    events.push(...run.log.events);
  }
  return events.slice(0, count);
}

/**
 * Milliseconds of CPU this process spent (user + system), not wall time: on a machine shared
 * with other work the wall clock measures the neighbours too, while the CPU spent appending is
 * what the journal costs. Wall time is kept alongside for the record.
 */
const wall: Record<string, number[]> = {};
function time(fn: () => void, label = "run"): number {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  fn();
  const used = process.cpuUsage(cpu);
  (wall[label] ??= []).push(Number(process.hrtime.bigint() - start) / 1e6);
  return (used.user + used.system) / 1000;
}

type RawVariant = "rawPre" | "rawStringify" | "rawChained" | "rawChecked";

/**
 * The same rows inserted with raw better-sqlite3. `rawChained` also hashes the chain and writes
 * its column, and `rawChecked` also checks each event as the store does and adds its partial
 * index: the steps between a raw insert and an append, each timed interleaved with SQLite, where
 * they cost more than alone.
 */
function rawInsert(path: string, events: readonly RunEvent[], variant: RawVariant, bodies: string[]): number {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const chained = variant === "rawChained" || variant === "rawChecked";
  db.exec(`CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL${chained ? ", chain TEXT" : ""}, PRIMARY KEY (run_id, seq)) WITHOUT ROWID`);
  if (variant === "rawChecked") db.exec("CREATE INDEX events_run_started ON events (run_id) WHERE type = 'run.started'");
  const insert = db.prepare(`INSERT INTO events VALUES (?, ?, ?, ?${chained ? ", ?" : ""})`);
  let link = CHAIN_START;
  const ms = time(() => {
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as RunEvent;
      if (variant === "rawPre") insert.run(event.runId, event.seq, event.type, bodies[i] as string);
      else if (variant === "rawStringify") insert.run(event.runId, event.seq, event.type, JSON.stringify(event));
      else {
        const body = variant === "rawChecked" ? (checkEvents([event]).bodies[0] as string) : JSON.stringify(event);
        link = chainLink(link, body);
        insert.run(event.runId, event.seq, event.type, body, link);
      }
    }
  }, variant);
  db.close();
  return ms;
}

/**
 * The store's own work, apart from SQLite: each event checked and serialised (the canonical
 * copy, its schema, its text), and its hash-chain link. Run alone, in a tight loop, these cost
 * less than they add to an append (measured: the sum of the parts is below the append's cost
 * over a raw insert of the same rows), so the gap shows how much is the interleaving.
 */
function storeWork(events: readonly RunEvent[]): { check: number; chain: number } {
  let bodies: string[] = [];
  const check = time(() => {
    bodies = events.map((event) => checkEvents([event]).bodies[0] as string);
  }, "check");
  let link = CHAIN_START;
  const chain = time(() => {
    for (const body of bodies) link = chainLink(link, body);
  }, "chain");
  return { check, chain };
}

function storeAppend(path: string, events: readonly RunEvent[]): number {
  const store = new SqliteRunStore(path);
  const ms = time(() => {
    for (const event of events) store.append([event]);
  }, "store");
  store.close();
  return ms;
}

export async function benchJournal(): Promise<void> {
  const count = Number(process.env.BENCH_EVENTS ?? 20_000);
  const events = await realisticEvents(count);
  const bodies = events.map((event) => JSON.stringify(event));
  const bytes = bodies.reduce((sum, body) => sum + body.length, 0);
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-"));
  const results = { store: [] as number[], rawPre: [] as number[], rawStringify: [] as number[], rawChained: [] as number[], rawChecked: [] as number[], check: [] as number[], chain: [] as number[] };
  // Paired: each round times the store right beside the raw inserts, in alternating order, and
  // the ratios are taken per round. On a shared machine the speed drifts over a run; medians
  // of separately sorted times paired a fast store round with a slow raw one (1.21x and 1.37x
  // on back-to-back runs of one build).
  const ROUNDS = 9;
  for (let round = 0; round < ROUNDS; round++) {
    const raw = () => {
      for (const variant of ["rawPre", "rawStringify", "rawChained", "rawChecked"] as const) results[variant].push(rawInsert(join(dir, `${variant}-${round}.db`), events, variant, bodies));
    };
    if (round % 2 === 0) raw();
    results.store.push(storeAppend(join(dir, `store-${round}.db`), events));
    if (round % 2 === 1) raw();
    const work = storeWork(events);
    results.check.push(work.check);
    results.chain.push(work.chain);
  }
  rmSync(dir, { recursive: true, force: true });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const ratios = (over: readonly number[], under: readonly number[]) => median(over.map((value, index) => value / (under[index] as number)));
  const store = median(results.store);
  const rawPre = median(results.rawPre);
  const rawStringify = median(results.rawStringify);
  const perEvent = (ms: number) => `${((ms * 1000) / count).toFixed(1)} µs/event`;
  console.log(`journal: ${count} events (avg ${Math.round(bytes / count)} bytes), one append per event, ${ROUNDS} paired rounds, CPU time`);
  console.log(`  SqliteRunStore.append            ${store.toFixed(1)} ms  (${perEvent(store)}, median)`);
  console.log(`    its own work, timed alone: check + serialise ${perEvent(median(results.check))}, chain link ${perEvent(median(results.chain))}`);
  console.log(`  raw insert, JSON.stringify       ${rawStringify.toFixed(1)} ms  (${perEvent(rawStringify)})`);
  console.log(`  raw insert, pre-serialised rows  ${rawPre.toFixed(1)} ms  (${perEvent(rawPre)})`);
  // Differences of per-round CPU times, paired as the ratios are: what each step adds in place.
  const adds = (over: readonly number[], under: readonly number[]) => {
    const ms = median(over.map((value, index) => value - (under[index] as number)));
    return `${ms < 0 ? "-" : "+"}${perEvent(Math.abs(ms))}`;
  };
  console.log(`  where the gap goes, interleaved with SQLite (medians of the rounds' differences):`);
  console.log(`    chain link and its column        ${adds(results.rawChained, results.rawStringify)}`);
  console.log(`    check (copy, schema, text), partial index  ${adds(results.rawChecked, results.rawChained)}`);
  console.log(`    the store's own bookkeeping      ${adds(results.store, results.rawChecked)}`);
  console.log(`  ratio store / raw (JSON.stringify): ${ratios(results.store, results.rawStringify).toFixed(2)}x, median of the rounds' ratios   (target <= 1.30x)`);
  console.log(`  ratio store / raw (pre-serialised): ${ratios(results.store, results.rawPre).toFixed(2)}x`);
  console.log(`  ratio of the medians (JSON.stringify), as this bench gave it before it paired its rounds: ${(store / rawStringify).toFixed(2)}x`);
  const wallRatio = ratios(wall.store ?? [], wall.rawStringify ?? []);
  console.log(`  wall-clock ratio store / raw (JSON.stringify): ${wallRatio.toFixed(2)}x (moves with the machine's load)`);
}
