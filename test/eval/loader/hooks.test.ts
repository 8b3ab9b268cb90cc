/**
 * Eval files load through Node's own import: TypeScript one file at a time (cached by content),
 * Retrace resolved to the running copy when the project does not have it, everything else
 * (import.meta, helpers shared between files) as Node does it.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { framePosition, loadEvalFiles } from "../../../src/eval/loader/index.js";
import { PACKAGE_NAME } from "../../../src/package-info.js";
import { CASE, readJsonReport, retrace, suite, tempDir } from "../cli-helpers.js";
import { processes } from "../../cli/run-cli.js";
import { useCacheThatSawEveryText } from "./seen-cache.js";

// Files run as scripts from their first load, as from a text's second run under the CLI.
useCacheThatSawEveryText();

describe("loading eval files through the eval hooks", () => {
  it("TypeScript modules import each other by their .js names; import.meta is the file's own; a helper is one module for every file", async () => {
    const dir = suite({
      "shared.ts": `export const seen: string[] = [];\nexport const where: string = import.meta.url;\n`,
      "helper.mts": `export function label(name: string): string { return name.toUpperCase(); }\n`,
      "a.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { seen, where } from "./shared.js";\nimport { label } from "./helper.mjs";\nseen.push("a");\ndefineEval({ name: label("a") + " " + where + " " + import.meta.url, config: { llm: { provider: "openai" } }, test: () => {} });\n`,
      "b.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { seen } from "./shared.js";\nseen.push("b");\ndefineEval({ name: seen.join(","), config: { llm: { provider: "openai" } }, test: () => {} });\n`,
    });
    const loaded = await loadEvalFiles([dir], dir);
    expect(loaded.map((file) => file.error)).toEqual([undefined, undefined]);
    expect(loaded[0]?.cases[0]?.name).toBe(`A ${pathToFileURL(join(dir, "shared.ts")).href} ${pathToFileURL(join(dir, "a.eval.ts")).href}`);
    expect(loaded[1]?.cases[0]?.name).toBe("a,b");
  });

  it("a JavaScript eval file may import Retrace as `retrace` (the command's name) when no package of that name is installed", async () => {
    const dir = suite({ "plain.eval.mjs": `import { defineEval } from "retrace";\ndefineEval({ name: "plain", config: { llm: { provider: "openai" } }, test: () => {} });\n` });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((definition) => definition.name)).toEqual(["plain"]);
  });

  it("a JavaScript helper module may import Retrace too: the file then loads through the hooks", async () => {
    const dir = suite({
      "helper.mjs": `import { defineEval } from "retrace-agents";\nexport const define = (name) => defineEval({ name, config: { llm: { provider: "openai" } }, test: () => {} });\n`,
      "via-helper.eval.mjs": `import { define } from "./helper.mjs";\ndefine("from the helper");\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((definition) => definition.name)).toEqual(["from the helper"]);
  });

  it("an eval file loaded from its rewritten copy, or run as a script, still reports a throw at its own line", async () => {
    const body = `import { sep } from "node:path";\ndefineEval({ name: "throws", config: { llm: { provider: "openai" } }, test: () => {\n  if (sep) throw new Error("here");\n} });\n`;
    // An export keeps a file a module (a copy, as Retrace is not installed here); without one it runs as a script.
    const dir = suite({ "copied.eval.mjs": `import { defineEval } from "retrace"; export const x = 1;\n${body}`, "script.eval.mjs": `import { defineEval } from "retrace";\n${body}` });
    for (const loaded of await loadEvalFiles([dir], dir)) {
      const error = await Promise.resolve()
        .then(() => loaded.cases[0]?.test(undefined as never))
        .then(() => undefined, (thrown: unknown) => thrown as Error);
      const frames = (error?.stack ?? "").split("\n").slice(1).map(framePosition);
      expect(frames).toContainEqual({ file: loaded.path, line: 4, column: 18 });
    }
  });

  it("a TypeScript eval file that imports only Retrace and Node runs as a script of its compiled code, and a throw maps to its own line and column", async () => {
    const line = `  const n: number = sep.length; if (n) throw new Error("here");`;
    const dir = suite({
      "typed.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { sep } from "node:path";\ndefineEval({ name: "throws", config: { llm: { provider: "openai" } }, test: () => {\n${line}\n} });\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    const error = await Promise.resolve()
      .then(() => loaded?.cases[0]?.test(undefined as never))
      .then(() => undefined, (thrown: unknown) => thrown as Error);
    const stack = error?.stack ?? "";
    // The compiled script, named by the .ts file: not a copy, nor the hooks' module (which names no frame of the compiled code).
    expect(stack).toContain(`${pathToFileURL(join(dir, "typed.eval.ts")).href}:`);
    expect(stack).not.toContain("retrace-eval-load-");
    expect(stack.split("\n").slice(1).map(framePosition)).toContainEqual({ file: join(dir, "typed.eval.ts"), line: 4, column: line.indexOf("new Error") + 1 });
  });

  it("a TypeScript eval file and its TypeScript helper may import JSON with its import attribute (esbuild dropped it for a `node20` target)", async () => {
    const dir = suite({
      "data.json": `{ "word": "json" }\n`,
      "helper.ts": `import data from "./data.json" with { type: "json" };\nexport const word: string = data.word;\n`,
      "json.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport data from "./data.json" with { type: "json" };\nimport { word } from "./helper.js";\ndefineEval({ name: data.word + " " + word, config: { llm: { provider: "openai" } }, test: () => {} });\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((definition) => definition.name)).toEqual(["json json"]);
  });

  it("a TypeScript eval file may import a TypeScript module by its absolute path (found in review)", async () => {
    const dir = suite({ "lib/helper.ts": `export const greet = (name: string): string => "hi " + name;\n` });
    writeFileSync(
      join(dir, "abs.eval.ts"),
      `import { defineEval } from "${PACKAGE_NAME}";\nimport { greet } from ${JSON.stringify(join(dir, "lib", "helper.ts"))};\ndefineEval({ name: greet("abs"), config: { llm: { provider: "openai" } }, test: () => {} });\n`,
    );
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((definition) => definition.name)).toEqual(["hi abs"]);
  });

  it("a link error of a file loaded from its copy names Retrace as the file does, not the running copy's file (found in review)", async () => {
    const dir = suite({
      "link.eval.ts": `import { notAThing } from "${PACKAGE_NAME}";\nconsole.log(notAThing);\n`,
      "link.eval.mjs": `import { notAThing } from "retrace";\nconsole.log(notAThing);\n`,
    });
    const loaded = await loadEvalFiles([dir], dir);
    expect(loaded.map((file) => file.error?.message)).toEqual([
      expect.stringContaining(`module 'retrace' does not provide an export named 'notAThing'`),
      expect.stringContaining(`module '${PACKAGE_NAME}' does not provide an export named 'notAThing'`),
    ]);
  });

  it("an import of a subpath Retrace does not have names the specifier, the importing file and the subpaths there are", async () => {
    const dir = suite({
      "nope.eval.ts": `import { t } from "${PACKAGE_NAME}/nope";\nconsole.log(t);\n`,
      "nope.eval.mjs": `import { t } from "retrace/nope";\nconsole.log(t);\n`,
    });
    const loaded = await loadEvalFiles([dir], dir);
    const messages = loaded.map((file) => file.error?.message ?? "");
    expect(messages[0]).toContain(`"retrace/nope" (imported from ${join(dir, "nope.eval.mjs")})`);
    expect(messages[1]).toContain(`"${PACKAGE_NAME}/nope" (imported from ${join(dir, "nope.eval.ts")})`);
    for (const message of messages) {
      expect(message).toContain(`${PACKAGE_NAME}/testing`);
      expect(message).not.toContain("package.json");
    }
  });

  it("a link error of a file that spells Retrace both ways does not guess which spelling failed (found in review)", async () => {
    const dir = suite({ "both.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { notAThing } from "retrace";\nconsole.log(defineEval, notAThing);\n` });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error?.message).toContain("does not provide an export named 'notAThing'");
    expect(loaded?.error?.message).not.toContain(`module '${PACKAGE_NAME}' does not provide`);
  });

  it("a file that imports Retrace by name and an installed package called `retrace` gets that package (found in review)", async () => {
    const dir = suite({
      "node_modules/retrace/package.json": `{"name":"retrace","version":"1.0.0","type":"module","exports":"./index.js"}`,
      "node_modules/retrace/index.js": `export const unrelated = "the other retrace";\n`,
      "mixed.eval.mjs": `import { defineEval } from "${PACKAGE_NAME}";\nimport { unrelated } from "retrace";\ndefineEval({ name: unrelated, config: { llm: { provider: "openai" } }, test: () => {} });\n`,
      "mixed-ts.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nimport { unrelated } from "retrace";\ndefineEval({ name: unrelated + " (ts)", config: { llm: { provider: "openai" } }, test: () => {} });\n`,
    });
    const loaded = await loadEvalFiles([dir], dir);
    expect(loaded.map((file) => file.error)).toEqual([undefined, undefined]);
    expect(loaded.flatMap((file) => file.cases.map((definition) => definition.name))).toEqual(["the other retrace (ts)", "the other retrace"]);
  });

  it("a throw after a rewritten import on the same line is reported at its own column (found in review)", async () => {
    const line = `  const m = await import("retrace/testing"); if (m && sep) throw new Error("here");`;
    const dir = suite({
      "cols.eval.mjs": `import { defineEval } from "retrace";\nimport { sep } from "node:path";\ndefineEval({ name: "throws", config: { llm: { provider: "openai" } }, test: async () => {\n${line}\n} });\n`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    const error = await Promise.resolve()
      .then(() => loaded?.cases[0]?.test(undefined as never))
      .then(() => undefined, (thrown: unknown) => thrown as Error);
    const frames = (error?.stack ?? "").split("\n").slice(1).map(framePosition);
    expect(frames).toContainEqual({ file: join(dir, "cols.eval.mjs"), line: 4, column: line.indexOf("new Error") + 1 });
  });

  it(
    "a stack trace an eval file loaded from its copy prints itself names the eval file, not the temp copy",
    async () => {
      const print = `console.log("frame", new Error("here").stack.split("\\n")[1].trim());\n`;
      const dir = suite({
        "printed.eval.mjs": `import { defineEval } from "retrace";\n${print}${CASE("js", "t.completed();")}`,
        "printed.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nconst n: number = 1;\n${print}${CASE("ts", "t.completed();")}`,
      });
      const run = await retrace(["eval-test", ".", "--mock"], { cwd: dir });
      expect(run.code).toBe(0);
      const frames = run.stdout.split("\n").filter((line) => line.startsWith("frame "));
      expect(frames).toEqual([`frame at ${pathToFileURL(join(dir, "printed.eval.mjs")).href}:2:${print.indexOf("new Error") + 1}`, expect.stringMatching(/^frame at file:.*\/printed\.eval\.ts:\d+:\d+$/)]);
      expect(frames.join("\n")).toContain(pathToFileURL(join(dir, "printed.eval.ts")).href);
    },
    processes(1),
  );

  it("a TypeScript syntax error names the file, line and column", async () => {
    const dir = suite({ "bad.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nconst x: number = ;\n` });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error?.message).toMatch(/^bad\.eval\.ts: cannot load: .*bad\.eval\.ts:2:19: Unexpected ";"/);
  });

  it(
    "compiled TypeScript is kept by content: an unchanged file is read from the cache, an edited one compiled again",
    async () => {
      const tmp = tempDir("retrace-ts-cache-test-");
      const dir = suite({ "cached.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";\nconst name: string = "original";\n${CASE("__NAME__", "t.completed();").replace('"__NAME__"', "name")}` });
      const names = async (): Promise<string[]> => {
        const run = await retrace(["eval-test", ".", "--mock", "--reporter", "json=report.json"], { cwd: dir, env: { TMPDIR: tmp } });
        expect(run.code).toBe(0);
        return readJsonReport(join(dir, "report.json")).cases.map((entry) => entry.name);
      };
      expect(await names()).toEqual(["original"]);
      const [cacheFolder] = readdirSync(tmp).filter((entry) => entry.startsWith("retrace-ts-cache-"));
      const cacheFiles = readdirSync(join(tmp, cacheFolder as string));
      expect(cacheFiles).toHaveLength(1);
      // Tampered in the cache: the next run shows the cache was used, not the compiler.
      const cached = join(tmp, cacheFolder as string, cacheFiles[0] as string);
      writeFileSync(cached, readFileSync(cached, "utf8").replace('"original"', '"from the cache"'));
      expect(await names()).toEqual(["from the cache"]);
      writeFileSync(join(dir, "cached.eval.ts"), readFileSync(join(dir, "cached.eval.ts"), "utf8").replace('"original"', '"edited"'));
      expect(await names()).toEqual(["edited"]);
    },
    processes(3),
  );
});
