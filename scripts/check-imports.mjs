#!/usr/bin/env node
/**
 * The import-boundary check (`npm run check:imports`, part of `npm test`): the module rules of
 * .dependency-cruiser.cjs, plus one rule dependency-cruiser cannot state — no circle between
 * folders (src/<folder>, scorers), even when each module-level edge is allowed.
 * `--mermaid` prints the folder graph for docs/architecture.md instead.
 */
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
const { output: result } = await cruise(["src", "scorers"], options, undefined, { tsConfig: extractTSConfig("tsconfig.json") });

const folderOf = (path) => path.match(/^(src\/[^/]+(?=\/)|src\/[^/]+\.ts$|scorers)/)?.[1];
const edges = new Map();
for (const module of result.modules) {
  const from = folderOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = folderOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const targets = edges.get(from);
    if (!targets.has(to)) targets.set(to, []);
    targets.get(to).push(`${module.source} → ${dependency.resolved}`);
  }
}

if (process.argv.includes("--mermaid")) {
  const id = (folder) => folder.replace(/^src\//, "").replace(/\W/g, "_");
  console.log("flowchart TD");
  for (const [from, targets] of [...edges].sort()) for (const to of [...targets.keys()].sort()) console.log(`  ${id(from)} --> ${id(to)}`);
  process.exit(0);
}

// Tarjan's strongly connected components over the folder graph.
const folders = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((targets) => [...targets.keys()])])].sort();
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
let counter = 0;
const visit = (folder) => {
  index.set(folder, counter);
  low.set(folder, counter++);
  stack.push(folder);
  onStack.add(folder);
  for (const next of edges.get(folder)?.keys() ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(folder, Math.min(low.get(folder), low.get(next)));
    } else if (onStack.has(next)) low.set(folder, Math.min(low.get(folder), index.get(next)));
  }
  if (low.get(folder) === index.get(folder)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) circles.push(component.sort());
  }
};
for (const folder of folders) if (!index.has(folder)) visit(folder);

const violations = result.summary.violations;
for (const violation of violations) {
  const path = violation.cycle ? violation.cycle.map((step) => step.name ?? step).join(" → ") : violation.to;
  console.error(`✗ ${violation.rule.name}: ${violation.from} → ${path}`);
}
for (const circle of circles) {
  console.error(`✗ folders import each other in a circle: ${circle.join(" ⇄ ")}`);
  for (const from of circle) {
    for (const [to, examples] of edges.get(from) ?? []) if (circle.includes(to)) console.error(`    ${examples[0]}`);
  }
}
if (violations.length || circles.length) {
  console.error(`import boundaries: ${violations.length} rule violation(s), ${circles.length} folder circle(s) (see .dependency-cruiser.cjs and docs/architecture.md)`);
  process.exit(1);
}
console.log(`import boundaries hold: ${result.summary.totalCruised} modules, ${folders.length} folders, no folder circle`);
