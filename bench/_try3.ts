import { readFileSync } from "node:fs";
import { pyJsonLoads } from "../src/benchmarks/bfcl/python/json.js";
import { PyDict } from "../src/benchmarks/bfcl/python/value.js";
import { systemPrompt, withLanguageHints } from "../src/benchmarks/bfcl/prompt.js";
const line = readFileSync("fixtures/bfcl/v4/BFCL_v4_simple_python.json", "utf8").split("\n")[0]!;
const row = pyJsonLoads(line) as PyDict;
const got = systemPrompt(withLanguageHints(row.get("function")!, "simple_python"));
const want = readFileSync("fixtures/bfcl/default_system_prompt_simple_python_0.txt", "utf8");
console.log(got === want, got.length, want.length);
if (got !== want) for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) { console.log(i, JSON.stringify(want.slice(i-20, i+20)), JSON.stringify(got.slice(i-20, i+20))); break; }
