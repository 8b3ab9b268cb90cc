// Peak memory of one run whose answer is one big text, measured in a child process per stage.
// (The figures, and where each remaining copy comes from, are in the README under Benchmarks.)
// Usage: node bench/memory-peak.mjs [megabytes]   (needs `npm run build` first)
// Each stage runs alone in a fresh process and reports its peak RSS (getrusage maxRSS), so the
// stages show where the copies of the payload come from.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/src/", import.meta.url));
const stage = process.argv[2];
if (stage === "--stage") {
  const [, , , name, dir] = process.argv;
  const { ScriptedModel } = await import(join(dist, "providers/scripted/index.js"));
  const { AgentRun } = await import(join(dist, "agent/index.js"));
  const { MemoryRunStore, SqliteRunStore } = await import(join(dist, "store/index.js"));
  const { createRunContext, manualClock, sequentialIds } = await import(join(dist, "context/index.js"));
  const bytes = Number(process.argv[5]) * 1024 * 1024;
  // Prose: lines, quotes and a backslash now and then, so JSON has to escape the text.
  const prose = () => 'He said "yes".\n'.repeat(Math.ceil(bytes / 15)).slice(0, bytes);
  const inline = { inline: () => "a".repeat(bytes), "inline-sqlite": () => "a".repeat(bytes), prose, "prose-sqlite": prose }[name];
  const model = inline ? new ScriptedModel({ responses: [{ text: inline() }] }) : ScriptedModel.fromFile(join(dir, "mock.yaml"));
  if (name !== "parse") {
    const store = name.endsWith("sqlite") ? new SqliteRunStore(join(dir, `runs-${process.pid}.db`)) : new MemoryRunStore();
    const agent = { name: "big", maxSteps: 2, model, tools: [] };
    const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), ids: sequentialIds(), seed: 1 });
    const outcome = await AgentRun.start(agent, { store, context }).send("hi");
    if (outcome.output.length === 0) throw new Error("no answer");
  }
  process.stdout.write(String(process.resourceUsage().maxRSS));
} else {
  const megabytes = Number(stage ?? 50);
  const dir = mkdtempSync(join(tmpdir(), "retrace-mem-"));
  writeFileSync(join(dir, "mock.yaml"), `responses:\n  - text: "${"a".repeat(megabytes * 1024 * 1024)}"\n`);
  const me = fileURLToPath(import.meta.url);
  const baseline = Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.resourceUsage().maxRSS))"]).toString());
  console.log(`payload ${megabytes} MB; node alone ${(baseline / 1024).toFixed(0)} MB`);
  for (const name of ["parse", "memory", "sqlite", "inline", "inline-sqlite", "prose", "prose-sqlite"]) {
    const kb = Number(execFileSync(process.execPath, [me, "--stage", name, dir, String(megabytes)]).toString());
    const what = {
      parse: "parse the mock YAML",
      memory: "parse + run, memory store",
      sqlite: "parse + run, SQLite store",
      inline: "run with the text given in code, memory store",
      "inline-sqlite": "run with the text given in code, SQLite store",
      prose: "run with escaped prose given in code, memory",
      "prose-sqlite": "run with escaped prose given in code, SQLite",
    }[name];
    console.log(`${what.padEnd(48)} peak RSS ${(kb / 1024).toFixed(0).padStart(5)} MB = ${((kb - baseline) / 1024 / megabytes).toFixed(1)}× payload above node`);
  }
}
