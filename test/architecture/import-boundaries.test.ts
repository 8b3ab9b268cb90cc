import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";

const repo = join(import.meta.dirname, "../..");
const script = join(repo, "scripts/check-imports.mjs");

/** Runs the boundary check (`npm run check:imports` runs it on this project) in `cwd`; returns its exit code and everything it printed. */
function check(cwd: string): { code: number; output: string } {
  try {
    const stdout = execFileSync(process.execPath, [script], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, output: stdout };
  } catch (error) {
    const failure = error as { status: number; stdout: string; stderr: string };
    return { code: failure.status, output: failure.stdout + failure.stderr };
  }
}

/** A tiny tree with the project's rules and tsconfig, and the given source files. */
function tree(files: Record<string, string>): string {
  const root = tempDir("retrace-layers-");
  copyFileSync(join(repo, ".dependency-cruiser.cjs"), join(root, ".dependency-cruiser.cjs"));
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true } }));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "layers-fixture", type: "module" }));
  for (const [path, text] of Object.entries({ "scorers/index.ts": "export {};\n", ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// Each case spawns the real check (dependency-cruiser over a small tree): seconds, not milliseconds.
describe("the import-boundary check", { timeout: 60_000 }, () => {
  it("fails when a contract imports an implementation", () => {
    const root = tree({
      "src/contracts/model.ts": 'import { open } from "../store/sqlite.js";\nexport const model = open;\n',
      "src/store/sqlite.ts": "export const open = 1;\n",
    });
    const { code, output } = check(root);
    expect(code).toBe(1);
    expect(output).toContain("✗ contracts-depend-on-nothing: src/contracts/model.ts → src/store/sqlite.ts");
  });

  it("fails when the pure core reaches the file system or an edge", () => {
    const root = tree({
      "src/journal/fold.ts": 'import { readFileSync } from "node:fs";\nimport { run } from "../agent/run.js";\nexport const fold = [readFileSync, run];\n',
      "src/agent/run.ts": "export const run = 1;\n",
    });
    const { code, output } = check(root);
    expect(code).toBe(1);
    expect(output).toContain("✗ pure-core-has-no-effects: src/journal/fold.ts → fs");
    expect(output).toContain("✗ pure-core-stays-pure: src/journal/fold.ts → src/agent/run.ts");
  });

  it("fails when anything imports the CLI", () => {
    const root = tree({
      "src/agent/run.ts": 'import { main } from "../cli/main.js";\nexport const run = main;\n',
      "src/cli/main.ts": "export const main = 1;\n",
    });
    const { code, output } = check(root);
    expect(code).toBe(1);
    expect(output).toContain("✗ nothing-imports-the-cli: src/agent/run.ts → src/cli/main.ts");
  });

  it("fails on a circle between folders even when no module imports itself back", () => {
    const root = tree({
      "src/store/memory.ts": 'import { clock } from "../context/clock.js";\nexport const memory = clock;\n',
      "src/store/log.ts": "export const log = 1;\n",
      "src/context/clock.ts": "export const clock = 1;\n",
      "src/context/ids.ts": 'import { log } from "../store/log.js";\nexport const ids = log;\n',
    });
    const { code, output } = check(root);
    expect(code).toBe(1);
    expect(output).toContain("✗ folders import each other in a circle: src/context ⇄ src/store");
  });

  it("fails on a module circle hidden behind a dynamic import", () => {
    const root = tree({
      "src/agent/run.ts": 'import { batch } from "./batch.js";\nexport const run = batch;\n',
      "src/agent/batch.ts": 'export const batch = () => import("./run.js");\n',
    });
    const { code, output } = check(root);
    expect(code).toBe(1);
    expect(output).toContain("✗ no-circular-modules");
  });
});
