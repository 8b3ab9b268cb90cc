// npm run bench [-- journal|eval|gaia|bfcl|retrieval|cassette|bundle|html-view|crash]: runs the benchmark scripts (all by default).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const which = process.argv.slice(2);
const all = ["journal", "eval", "gaia", "bfcl", "retrieval", "cassette", "bundle", "html-view", "crash"];
const selected = which.length ? which : all;
const root = fileURLToPath(new URL("..", import.meta.url));
let failed = false;
for (const name of selected) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${all.join(", ")}`);
    process.exit(2);
  }
  const result = spawnSync(process.execPath, ["--import", "tsx", `bench/${name}.main.ts`], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
