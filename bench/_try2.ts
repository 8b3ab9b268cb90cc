import { readFileSync } from "node:fs";
import { loadBfclData } from "../src/benchmarks/bfcl/load.js";
import { evaluateEntry } from "../src/benchmarks/bfcl/evaluate-entry.js";
const data = loadBfclData("fixtures/bfcl/v4");
console.log(data.version, data.entries.length, data.problems, data.categories);
const byId = new Map(data.entries.map((e) => [e.id, e]));
let bad = 0;
const gold = readFileSync("fixtures/bfcl/gold_model_results_v4.jsonl", "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
for (const g of gold) {
  const e = byId.get(g.id)!;
  let v;
  try { v = evaluateEntry({ category: e.category, functions: e.functions, answers: e.answers, output: { mode: "prompt", text: g.model_result_raw } }); } catch (err) { bad++; console.log(g.id, "THROW", (err as Error).message); continue; }
  if (!v.valid) { bad++; console.log(g.id, v.errorType, v.error, g.model_result_raw.slice(0, 300)); }
}
console.log("gold mismatches", bad, "of", gold.length);
const v3 = loadBfclData("fixtures/bfcl/v3");
console.log(v3.version, v3.entries.length, v3.problems, v3.categories);
