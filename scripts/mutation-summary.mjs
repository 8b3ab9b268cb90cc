#!/usr/bin/env node
/**
 * The mutation score per module, from Stryker's JSON reports (reports/mutation/<group>.json).
 * Score as Stryker computes it: detected (killed, timed out) over valid mutants, where
 * no-coverage mutants count as survived; ignored mutants and compile errors are left out.
 * Exits 1 when a module reported is below the target.
 *
 * Usage: node scripts/mutation-summary.mjs [group ...]   (default: every group with a report)
 */
import { existsSync, readFileSync } from "node:fs";
import { groups } from "../mutation.groups.mjs";

const TARGET = 85;
const wanted = process.argv.slice(2);
let timing = {};
try {
  timing = JSON.parse(readFileSync("reports/mutation/timing.json", "utf8"));
} catch {
  // No timings: durations are shown as unknown.
}

const count = (mutants) => {
  const tally = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, ignored: 0, errors: 0 };
  for (const mutant of mutants) {
    if (mutant.status === "Killed") tally.killed++;
    else if (mutant.status === "Timeout") tally.timeout++;
    else if (mutant.status === "Survived") tally.survived++;
    else if (mutant.status === "NoCoverage") tally.noCoverage++;
    else if (mutant.status === "Ignored") tally.ignored++;
    else tally.errors++;
  }
  const detected = tally.killed + tally.timeout;
  const valid = detected + tally.survived + tally.noCoverage;
  return { ...tally, detected, valid, score: valid === 0 ? 100 : (100 * detected) / valid };
};

const rows = [];
let totalSeconds = 0;
for (const group of groups) {
  if (wanted.length && !wanted.includes(group.name)) continue;
  const file = `reports/mutation/${group.name}.json`;
  if (!existsSync(file)) {
    if (wanted.length) rows.push({ group, missing: true });
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  const files = Object.entries(report.files).map(([path, entry]) => ({ path, ...count(entry.mutants) }));
  const all = count(Object.values(report.files).flatMap((entry) => entry.mutants));
  totalSeconds += timing[group.name]?.seconds ?? 0;
  rows.push({ group, files, all, timing: timing[group.name] });
}

const pct = (score) => `${score.toFixed(1)} %`.padStart(7);
console.log("\nMutation score per module (no-coverage counted as survived; target 85 %)\n");
let below = false;
for (const row of rows) {
  if (row.missing) {
    console.log(`  ${row.group.label.padEnd(30)}   no report (reports/mutation/${row.group.name}.json)`);
    below = true;
    continue;
  }
  const { all } = row;
  const mark = all.score >= TARGET ? "ok" : "BELOW TARGET";
  const when = row.timing ? `${row.timing.finishedAt.slice(0, 10)}, ${row.timing.seconds} s` : "duration unknown";
  console.log(
    `  ${row.group.label.padEnd(30)} ${pct(all.score)}  ${String(all.detected).padStart(4)}/${String(all.valid).padEnd(4)} ` +
      `survived ${all.survived}, no coverage ${all.noCoverage}, ignored ${all.ignored}  (${when})  ${mark}`,
  );
  for (const file of row.files) {
    console.log(`      ${file.path.padEnd(40)} ${pct(file.score)}  ${file.detected}/${file.valid}`);
  }
  if (all.score < TARGET) below = true;
}
if (totalSeconds) console.log(`\n  total Stryker time: ${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s`);
process.exit(below ? 1 : 0);
