/**
 * A TypeScript eval file's TypeScript helpers (modules it imports by relative path) are compiled
 * into copies of the process's, so the file loads without Node's module hooks, whose thread took
 * 30–41 ms to start. It must behave as through the hooks: a helper is one module for every file,
 * a throw in a helper is reported at the helper's own line, and a link error names the helper
 * as the file wrote it.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
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

/** The imports of an eval file whose test looks in the temp folder. */
const TEMP_IMPORTS = `import { defineEval } from "retrace";\nimport { readdirSync } from "node:fs";\nimport { tmpdir } from "node:os";\n`;
/** A test that passes when the temp folder holds nothing whose name starts with `prefix`. */
const noCopies = (prefix: string): string => `(t) => { t.check(readdirSync(tmpdir()).filter((name) => name.startsWith("${prefix}")), (left) => left.length === 0); }`;

/** A probe that says on stderr when anything registers module hooks. */
function hooksProbe(): string {
  const probe = join(tempDir(), "hooks-probe.cjs");
  writeFileSync(
    probe,
    `const m = require("node:module");\nconst register = m.register;\nm.register = function (...args) { process.stderr.write("HOOKS REGISTERED\\n"); return register.apply(this, args); };\n`,
  );
  return probe;
}

async function names(dir: string, probe: string, env: Record<string, string> = {}): Promise<{ names: string[]; stderr: string }> {
  const report = join(dir, "report.json");
  const result = await retrace(["eval-test", join(dir, "eval"), "--mock", "--reporter", `json=${report}`], { node: ["--require", probe], env: { RETRACE_CODE_CACHE: "off", ...env } });
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

  it(
    "found in review: behave as through the hooks where a copy would not",
    async () => {
      const dir = suite({
        // A helper that imports its own eval file: the file runs once.
        "self/h.ts": `import { NAME } from "./a.eval";\nexport const label = (): string => "label-" + NAME;\n`,
        "self/a.eval.ts": `import { defineEval } from "retrace";\nimport { label } from "./h";\nexport const NAME = "a";\ndefineEval({ name: "self " + typeof label, config: ${CONFIG}, test: ${PASSES} });\n`,
        // A query or a fragment makes a module of its own.
        "query/h.ts": `export const made = ((globalThis as { madeCount?: number }).madeCount = ((globalThis as { madeCount?: number }).madeCount ?? 0) + 1);\n`,
        "query/q.eval.ts": `import { defineEval } from "retrace";\nimport "./h.ts";\nimport "./h.ts?v=2";\nimport "./h.ts#x";\ndefineEval({ name: "query " + (globalThis as { madeCount?: number }).madeCount, config: ${CONFIG}, test: ${PASSES} });\n`,
        // A link error between two helpers names the module as the helper wrote it.
        "link/b.ts": `export const there = 1;\n`,
        "link/h.ts": `import { nope } from "./b.js";\nexport const h = nope;\n`,
        "link/l.eval.ts": `import { defineEval } from "retrace";\nimport { h } from "./h";\ndefineEval({ name: "link " + h, config: ${CONFIG}, test: ${PASSES} });\n`,
        // An encoded slash: that file fails alone.
        "odd/e.eval.ts": `import { defineEval } from "retrace";\nimport { x } from "./a%2Fb.ts";\ndefineEval({ name: "odd " + x, config: ${CONFIG}, test: ${PASSES} });\n`,
        // A helper with a long name.
        [`long/${"h".repeat(240)}.ts`]: `export const long = "long";\n`,
        "long/n.eval.ts": `import { defineEval } from "retrace";\nimport { long } from "./${"h".repeat(240)}.js";\ndefineEval({ name: long, config: ${CONFIG}, test: ${PASSES} });\n`,
      });
      // A helper reached through a link into node_modules is the real file's, which is not in one.
      mkdirSync(join(dir, "nm", "node_modules"), { recursive: true });
      mkdirSync(join(dir, "nm", "packages", "pkg"), { recursive: true });
      writeFileSync(join(dir, "nm", "packages", "pkg", "h.ts"), `export const kept: string = "through node_modules";\n`);
      symlinkSync(join("..", "packages", "pkg"), join(dir, "nm", "node_modules", "pkg"));
      writeFileSync(join(dir, "nm", "n.eval.ts"), `import { defineEval } from "retrace";\nimport { kept } from "./node_modules/pkg/h";\ndefineEval({ name: kept, config: ${CONFIG}, test: ${PASSES} });\n`);
      // An eval file linked from elsewhere finds its helpers beside the real file, as Node does.
      const files = { "real/where.ts": `export const where = "real folder";\n`, "linked/where.ts": `export const where = "link's folder";\n` };
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(join(dir, name, ".."), { recursive: true });
        writeFileSync(join(dir, name), text);
      }
      writeFileSync(join(dir, "real", "w.eval.ts"), `import { defineEval } from "retrace";\nimport { where } from "./where";\ndefineEval({ name: "linked " + where, config: ${CONFIG}, test: ${PASSES} });\n`);
      symlinkSync(join(dir, "real", "w.eval.ts"), join(dir, "linked", "w.eval.ts"));
      const report = join(dir, "report.json");
      const given = ["self", "query", "link", "odd", "long", "nm", "linked/w.eval.ts"].map((name) => join(dir, name));
      const result = await retrace(["eval-test", ...given, "--mock", "--reporter", `json=${report}`], { env: { RETRACE_CODE_CACHE: "off" } });
      // Two files fail to load, each alone; nothing is an internal error.
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).not.toContain("internal error");
      const read = readJsonReport(report);
      expect(read.cases.map((entry) => entry.name).sort()).toEqual(["linked real folder", "long", "query 3", "self function", "through node_modules"]);
      const failed = Object.fromEntries(read.files.filter((entry) => entry.error).map((entry) => [entry.file.split("/").slice(-2).join("/"), entry.error?.message ?? ""]));
      expect(Object.keys(failed).sort()).toEqual(["link/l.eval.ts", "odd/e.eval.ts"]);
      expect(failed["link/l.eval.ts"]).toContain("The requested module './b.js' does not provide an export named 'nope'");
    },
    processes(1),
  );

  it(
    "leave no copy in the temp folder once the files are loaded, and load a JavaScript file's TypeScript import through the hooks (found in review)",
    async () => {
      const dir = suite({
        ...shared,
        "eval/c.eval.mjs": `${TEMP_IMPORTS}import { seen } from "./helpers.ts";\nseen.push("c");\ndefineEval({ name: "c " + seen.join(","), config: ${CONFIG}, test: ${noCopies("retrace-eval-helpers-")} });\n`,
      });
      const loaded = await names(dir, hooksProbe(), { TMPDIR: tempDir() });
      expect(loaded.stderr).toContain("HOOKS REGISTERED");
      expect(loaded.names).toEqual(["a 1 js json", "b sees a,b", "c a,b,c"]);
    },
    processes(1),
  );

  it(
    "leave no copy while the cases run when a helper copy was made (a process interrupted then leaves none)",
    async () => {
      const dir = suite({
        ...shared,
        "eval/d.eval.ts": `${TEMP_IMPORTS}import { seen } from "./helpers";\ndefineEval({ name: "d " + seen.length, config: ${CONFIG}, test: ${noCopies("retrace-eval-")} });\n`,
      });
      const loaded = await names(dir, hooksProbe(), { TMPDIR: tempDir() });
      expect(loaded.stderr).not.toContain("HOOKS REGISTERED");
      expect(loaded.names).toEqual(["a 1 js json", "b sees a,b", "d 2"]);
    },
    processes(1),
  );

  it(
    "found in a second review: an eval file's own import() of a helper at test time, a helper spelled two ways, an eval file as a helper",
    async () => {
      const dir = suite({
        // The file imports a helper when its test runs, after every file has loaded.
        "late/lazy.ts": `export const w: number = 5;\n`,
        "late/a.eval.ts": `import { defineEval } from "retrace";\nimport { sep } from "./sep";\ndefineEval({ name: "late" + sep, config: ${CONFIG}, test: async (t) => { const m = await import("./lazy"); t.check(m.w, (v) => v === 5); } });\n`,
        "late/sep.ts": `export const sep = "!";\n`,
        // Two spellings of one helper: a link error names the helper's file, not one spelling.
        "spelled/b.ts": `export const there = 1;\n`,
        "spelled/h.ts": `import { nope } from "./b.js";\nexport const h = nope;\n`,
        "spelled/s.eval.ts": `import { defineEval } from "retrace";\nimport { there } from "./b";\nimport { h } from "./h";\ndefineEval({ name: "spelled " + there + h, config: ${CONFIG}, test: ${PASSES} });\n`,
        // An eval file that is another's helper loads through the hooks, as before.
        "pair/h2.ts": `export const two = 2;\n`,
        "pair/b.eval.ts": `import { defineEval } from "retrace";\nimport { two } from "./h2";\nexport const B = "b";\ndefineEval({ name: "b " + two, config: ${CONFIG}, test: ${PASSES} });\n`,
        "pair/a.eval.ts": `import { defineEval } from "retrace";\nimport { B } from "./b.eval";\ndefineEval({ name: "a " + B, config: ${CONFIG}, test: ${PASSES} });\n`,
      });
      const run = async (...folders: string[]) => {
        const report = join(dir, "report.json");
        const result = await retrace(["eval-test", ...folders.map((name) => join(dir, name)), "--mock", "--reporter", `json=${report}`], { env: { RETRACE_CODE_CACHE: "off", TMPDIR: tempDir() } });
        expect(result.code, result.stdout + result.stderr).toBe(2);
        const read = readJsonReport(report);
        expect(read.cases.filter((entry) => entry.status !== "passed").map((entry) => entry.name)).toEqual([]);
        const failed = Object.fromEntries(read.files.filter((entry) => entry.error).map((entry) => [entry.file.split("/").slice(-2).join("/"), entry.error?.message ?? ""]));
        return { cases: read.cases, failed };
      };
      const copied = await run("late", "spelled");
      expect(copied.cases.map((entry) => entry.name)).toEqual(["late!"]);
      expect(copied.failed["spelled/s.eval.ts"]).toContain(`The requested module '${pathToFileURL(join(dir, "spelled", "b.ts")).href}' does not provide an export named 'nope'`);
      // Through the hooks, b's cases are defined while a loads (a imports it), and its own load finds none, as it always did.
      const hooked = await run("pair");
      expect(hooked.cases.map((entry) => entry.name).sort()).toEqual(["a b", "b 2"]);
      expect(hooked.failed["pair/b.eval.ts"]).toContain("defines no eval cases");
    },
    processes(2),
  );
});
