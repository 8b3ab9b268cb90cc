/**
 * A TypeScript eval file's TypeScript helpers (modules it imports by relative path) are compiled
 * into copies of the process's, so the file loads without Node's module hooks, whose thread took
 * 30–41 ms to start. It must behave as through the hooks: a helper is one module for every file,
 * a throw in a helper is reported at the helper's own line, and a link error names the helper
 * as the file wrote it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { framePosition, loadEvalFiles } from "../../../src/eval/loader/index.js";
import { PACKAGE_NAME } from "../../../src/package-info.js";
import { readJsonReport, retrace, suite, tempDir } from "../cli-helpers.js";
import { processes } from "../../cli/run-cli.js";

/** A case's config and mock, for a case whose test makes one passing check. */
const CONFIG = '{ name: "t", llm: { provider: "openai" } }, mock: { responses: [{ text: "unused" }] }, allowUnused: true';
const PASSES = "(t) => { t.check(1, (value) => value === 1); }";

/** A suite of two eval files sharing helpers: TypeScript (found by `./x`, `./x.js` and `./x.ts`), a JavaScript module, JSON. */
const shared = {
  "eval/lib/depth.ts": `import { sep } from "node:path";\nexport const depth: number = sep.length;\n`,
  "eval/lib/plain.mjs": `export const plain = "js";\n`,
  "eval/lib/data.json": `{ "word": "json" }\n`,
  "eval/helpers.ts": [
    `import { depth } from "./lib/depth.js";`,
    `import { plain } from "./lib/plain.mjs";`,
    `import data from "./lib/data.json" with { type: "json" };`,
    `export const seen: string[] = [];`,
    `export const label = (name: string): string => [name, depth, plain, data.word].join(" ");`,
    "",
  ].join("\n"),
  "eval/a.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { label, seen } from "./helpers";\nseen.push("a");\ndefineEval({ name: label("a"), config: ${CONFIG}, test: ${PASSES} });\n`,
  "eval/b.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { seen } from "./helpers.ts";\nseen.push("b");\ndefineEval({ name: "b sees " + seen.join(","), config: ${CONFIG}, test: ${PASSES} });\n`,
};

/** A probe that says on stderr when anything registers module hooks. */
function hooksProbe(): string {
  const probe = join(tempDir(), "hooks-probe.cjs");
  writeFileSync(
    probe,
    `const m = require("node:module");\nconst register = m.register;\nm.register = function (...args) { process.stderr.write("HOOKS REGISTERED\\n"); return register.apply(this, args); };\n`,
  );
  return probe;
}

async function names(dir: string, probe: string): Promise<{ names: string[]; stderr: string }> {
  const report = join(dir, "report.json");
  const result = await retrace(["eval-test", join(dir, "eval"), "--mock", "--reporter", `json=${report}`], { node: ["--require", probe], env: { RETRACE_CODE_CACHE: "off" } });
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return { names: readJsonReport(report).cases.map((entry) => entry.name), stderr: result.stderr };
}

describe("TypeScript helpers of a TypeScript eval file", () => {
  it(
    "load from copies, without the module hooks, each one module for every file",
    async () => {
      const loaded = await names(suite(shared), hooksProbe());
      expect(loaded.stderr).not.toContain("HOOKS REGISTERED");
      expect(loaded.names).toEqual(["a 1 js json", "b sees a,b"]);
    },
    processes(1),
  );

  it(
    "load through the hooks with every other file when one file needs them, still one module for every file",
    async () => {
      // import.meta would be the copy's: this helper is the hooks' to load, and so are all the others.
      const dir = suite({
        ...shared,
        "eval/where.ts": `export const here: string = import.meta.url;\n`,
        "eval/c.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { here } from "./where.js";\nimport { seen } from "./helpers.js";\nseen.push("c");\ndefineEval({ name: "c " + here.endsWith("/where.ts") + " " + seen.join(","), config: ${CONFIG}, test: ${PASSES} });\n`,
      });
      const loaded = await names(dir, hooksProbe());
      expect(loaded.stderr).toContain("HOOKS REGISTERED");
      expect(loaded.names).toEqual(["a 1 js json", "b sees a,b", "c true a,b,c"]);
    },
    processes(1),
  );

  it("report a throw in a helper at the helper's own line and column", async () => {
    const line = `  if (n > 1) throw new Error("from the helper");`;
    const dir = suite({
      "helper.ts": `export function check(n: number): number {\n  const twice: number = n * 2;\n${line}\n  return twice;\n}\n`,
      "uses.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { check } from "./helper.js";\ndefineEval({ name: "throws", config: ${CONFIG}, test: () => { check(2); } });\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    const error = await Promise.resolve()
      .then(() => loaded?.cases[0]?.test(undefined as never))
      .then(() => undefined, (thrown: unknown) => thrown as Error);
    expect(error?.message).toBe("from the helper");
    expect((error?.stack ?? "").split("\n").slice(1).map(framePosition)).toContainEqual({ file: join(dir, "helper.ts"), line: 3, column: line.indexOf("new Error") + 1 });
  });

  it("name a helper in a link error as the file wrote it, not by its copy", async () => {
    const dir = suite({
      "helper.ts": `export const there = 1;\n`,
      "link.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { notThere } from "./helper.ts";\ndefineEval({ name: String(notThere), config: ${CONFIG}, test: () => {} });\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error?.message).toContain("The requested module './helper.ts' does not provide an export named 'notThere'");
    expect(loaded?.error?.message).not.toContain("retrace-eval-helpers-");
  });
});
