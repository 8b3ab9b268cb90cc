#!/usr/bin/env node
/**
 * `npm run test:mutation [-- group ...]`: Stryker on the pure core, one group at a time (the
 * groups of mutation.groups.mjs), each with only its own tests, then the score per module.
 * Groups run one after another, never in parallel: each already uses two test workers.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { groups } from "../mutation.groups.mjs";

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !groups.some((group) => group.name === name));
if (unknown.length) {
  console.error(`unknown group(s) ${unknown.join(", ")}; the groups are ${groups.map((group) => group.name).join(", ")}`);
  process.exit(2);
}
const selected = wanted.length ? groups.filter((group) => wanted.includes(group.name)) : groups;
// The package exports no bin path, so the CLI is found next to this folder.
const stryker = fileURLToPath(new URL("../node_modules/@stryker-mutator/core/bin/stryker.js", import.meta.url));

mkdirSync("reports/mutation", { recursive: true });
const timingFile = "reports/mutation/timing.json";
let timing = {};
try {
  timing = JSON.parse(readFileSync(timingFile, "utf8"));
} catch {
  // First run: no timings yet.
}

let failed = false;
for (const group of selected) {
  console.log(`\n=== mutation testing: ${group.label} (${group.name}) ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs"], {
    stdio: "inherit",
    env: { ...process.env, MUTATION_GROUP: group.name },
  });
  timing[group.name] = { finishedAt: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000) };
  writeFileSync(timingFile, `${JSON.stringify(timing, null, 2)}\n`);
  if (result.status !== 0) {
    console.error(`Stryker failed on group ${group.name} (exit ${result.status ?? result.signal})`);
    failed = true;
  }
}

const summary = spawnSync(process.execPath, ["scripts/mutation-summary.mjs", ...selected.map((group) => group.name)], { stdio: "inherit" });
process.exit(failed ? 1 : (summary.status ?? 1));
