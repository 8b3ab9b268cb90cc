/**
 * An eval file that imports only Retrace and Node's built-ins, statically, and exports nothing
 * runs as a script (src/eval/loader/script-plan.ts), so that its compiled code can be kept in
 * V8's code cache between runs. It must behave as the module would: the same bindings, the
 * same errors at the same lines and columns, strict code, top-level await; and a file the
 * script cannot express exactly stays a module.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { framePosition, loadEvalFiles } from "../../../src/eval/loader/index.js";
import { planImport } from "../../../src/eval/loader/self-imports.js";
import { readJsonReport, retrace, root, suite, tempDir } from "../cli-helpers.js";
import { processes } from "../../cli/run-cli.js";
import { useCacheThatSawEveryText } from "./seen-cache.js";

// Files run as scripts from their first load, as from a text's second run under the CLI.
useCacheThatSawEveryText();

const CONFIG = '{ llm: { provider: "openai" } }';
/** A case named `name` (an expression) that does nothing. */
const named = (name: string): string => `defineEval({ name: ${name}, config: ${CONFIG}, test: () => {} });\n`;

/** The names of the cases a file of these lines defines; it must load. */
async function caseNames(lines: readonly string[]): Promise<string[]> {
  const loaded = await load([...lines, ""].join("\n"));
  expect(loaded.error).toBeUndefined();
  return loaded.cases.map((spec) => spec.name);
}

async function load(text: string, name = "a.eval.mjs"): Promise<Awaited<ReturnType<typeof loadEvalFiles>>[number]> {
  const dir = suite({ [name]: text });
  const [loaded] = await loadEvalFiles([dir], dir);
  if (!loaded) throw new Error("nothing loaded");
  return loaded;
}

describe("which eval files run as scripts", () => {
  const head = 'import { defineEval } from "retrace";\nimport { sep } from "node:path";\n';

  it("a file importing only the running Retrace and Node's built-ins, statically, that exports nothing", async () => {
    const file = join(tempDir(), "a.eval.mjs");
    expect((await planImport(file, `${head}${named("sep")}`)).kind).toBe("script");
    expect((await planImport(file, `#!/usr/bin/env node\n${head}import * as os from "node:os";\nimport fs, { readFileSync as read } from "node:fs";\nimport "node:util";\n${named("sep")}`)).kind).toBe("script");
  });

  it("not a file the script could not express exactly: it stays a module", async () => {
    const file = join(tempDir(), "a.eval.mjs");
    const kinds = async (...tails: string[]) => Promise.all(tails.map(async (tail) => (await planImport(file, `${head}${tail}`)).kind));
    const modules = await kinds(
      "export const shared = 1;\n",
      'export * from "node:os";\n',
      "const here = import.meta.url;\n",
      'const os = await import("node:os");\n',
      'import data from "node:fs" with { type: "json" };\n',
      'import { /* why */ join } from "node:path";\n',
      'import { "string name" as join } from "node:path";\n',
      'import { createRequire } from "node:module";\n',
      'import { useCassette } from "retrace-agents/vitest";\n',
      `// ${"x".repeat(1024 * 1024)}\n`,
      // Found in review: code made at run time cannot import() from a script; a map of its own is --enable-source-maps's.
      'const os = await eval("import(\'node:os\')");\n',
      "const made = new Function('return 1');\n",
      "//# sourceMappingURL=a.eval.mjs.map\n",
      'const q = 1 import { join } from "node:path";\n',
    );
    expect(modules.filter((kind) => kind === "script")).toEqual([]);
  });

  it("a .js file only where its package says it is a module: CommonJS is Node's (found in review)", async () => {
    const plain = suite({ "package.json": '{ "name": "p" }' });
    const typed = suite({ "package.json": '{ "name": "p", "type": "module" }' });
    expect((await planImport(join(plain, "a.eval.js"), `${head}${named("sep")}`)).kind).not.toBe("script");
    expect((await planImport(join(plain, "a.eval.js"), `const { defineEval } = require("retrace-agents");\n${named('"x"')}`)).kind).not.toBe("script");
    expect((await planImport(join(typed, "a.eval.js"), `${head}${named("sep")}`)).kind).toBe("script");
  });
});

describe("an eval file run as a script behaves as its module would", () => {
  it("binds every form of import to the module import gives", async () => {
    const names = await caseNames([
      'import { defineEval as define, match } from "retrace";',
      "import {",
      "  sep,",
      "  join as joined,",
      '} from "node:path";',
      'import * as os from "node:os";',
      'import fs, { readFileSync } from "node:fs";',
      'import * as retrace from "retrace";',
      'import "node:util";',
      'define({ name: [typeof match.exact, sep, joined("a", "b"), typeof os.cpus, fs.readFileSync === readFileSync, retrace.defineEval === define].join(" "), config: ' + CONFIG + ", test: () => {} });",
    ]);
    expect(names).toEqual(["function / a/b function true true"]);
  });

  it("is strict, with `this` undefined, top-level await and a hashbang", async () => {
    const names = await caseNames([
      "#!/usr/bin/env node",
      'import { defineEval } from "retrace";',
      "let strict = false;",
      "try { undeclared = 1; } catch { strict = true; }",
      "const value = await Promise.resolve(this === undefined);",
      'defineEval({ name: `${strict} ${value}`, config: ' + CONFIG + ", test: () => {} });",
    ]);
    expect(names).toEqual(["true true"]);
  });

  it("keeps the statements around an import apart, as the module does", async () => {
    // Blanked to nothing, the import would leave `f()\n(() => {})()`: one call of f's result.
    const names = await caseNames([
      "let calls = 0;",
      "const f = () => () => { calls++; };",
      "f()",
      'import { defineEval } from "retrace"',
      "(() => {})()",
      'defineEval({ name: "calls " + calls, config: ' + CONFIG + ", test: () => {} });",
    ]);
    expect(names).toEqual(["calls 0"]);
  });

  it("fails on a name a module does not export with Node's own error, before any of the file runs", async () => {
    const marker = `__retraceScriptRan${process.pid}`;
    const loaded = await load(`import { defineEval, nope } from "retrace";\nglobalThis.${marker} = true;\n${named('"x"')}`);
    expect(loaded.error?.message).toContain("The requested module 'retrace' does not provide an export named 'nope'");
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
  });

  it("reports a throw at the line and column the file has it, on the first line too", async () => {
    const line = `import { defineEval } from "retrace"; defineEval({ name: "first", config: ${CONFIG}, test: () => { throw new Error("here"); } });`;
    const loaded = await load(`${line}\n`);
    const error = await Promise.resolve()
      .then(() => loaded.cases[0]?.test(undefined as never))
      .then(() => undefined, (thrown: unknown) => thrown as Error);
    const frames = (error?.stack ?? "").split("\n").slice(1).map(framePosition);
    expect(frames).toContainEqual({ file: loaded.path, line: 1, column: line.indexOf("new Error") + 1 });
  });

  it("leaves a file whose script does not compile to Node, which names the file's own error", async () => {
    const broken = await load(`import { defineEval } from "retrace";\ndefineEval({ name: "x", config: ${CONFIG}, test: () => {} };\n`);
    expect(broken.error?.message).toMatch(/a\.eval\.mjs:2:\d+/);
    const twice = await load(`import { sep } from "node:path";\nvar sep;\n`);
    expect(twice.error?.message).toMatch(/already been declared/);
  });

  it("runs no code outside its function: a file with a brace too many is a module's, and Node refuses it (found in review)", async () => {
    const marker = `__retraceOutside${process.pid}`;
    const loaded = await load(`import { defineEval } from "retrace";\n${named('"x"')}});\nglobalThis.${marker} = true;\n(function () {\n`);
    expect(loaded.error?.message).toMatch(/a\.eval\.mjs:\d+:\d+/);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
  });

  it("names its parameter so that no name of the file's is taken (found in review)", async () => {
    const loaded = await load(`import { defineEval } from "retrace";\nfunction __retraceImports() {}\n${named("typeof __retraceImports")}`);
    expect(loaded.error).toBeUndefined();
    expect(loaded.cases.map((spec) => spec.name)).toEqual(["function"]);
  });

  it("a file whose script does not compile is imported as the module it would have been (a copy, not the hooks)", async () => {
    // `export {}` declares no name: only compiling says the file is not a script.
    const loaded = await load(`import { defineEval } from "retrace";\nexport {};\ndefineEval({ name: "exported", config: ${CONFIG}, test: () => { throw new Error("here"); } });\n`);
    expect(loaded.error).toBeUndefined();
    expect(loaded.cases.map((spec) => spec.name)).toEqual(["exported"]);
    const error = await Promise.resolve()
      .then(() => (loaded.cases[0] as { test: (t: never) => unknown }).test(undefined as never))
      .then(() => new Error("no throw"), (thrown: unknown) => thrown as Error);
    expect(error.message).toBe("here");
    // Its rewritten copy (named by the eval file), not a second import through the hooks.
    expect(error.stack ?? "").toContain("a.eval.mjs:3:");
    expect(error.stack ?? "").not.toContain("?retrace-load=");
  });

  it("a load that throws at the top level fails the file with the error", async () => {
    const loaded = await load(`import { defineEval } from "retrace";\nthrow new Error("broken fixture");\n`);
    expect(loaded.error?.code).toBe("eval_load");
    expect(loaded.error?.message).toContain("broken fixture");
  });
});

describe("the code cache of eval files run as scripts", () => {
  const file = (answer: string) =>
    [
      'import { defineEval } from "retrace";',
      `defineEval({ name: "answers", config: { name: "t", llm: { provider: "openai" } }, mock: { responses: [{ text: "${answer}" }] },`,
      `  test: async (t) => { await t.send("hi"); t.outputContains("${answer}"); } });`,
      "",
    ].join("\n");
  const evalCaches = (cache: string) => (existsSync(cache) ? readdirSync(cache).filter((name) => name.startsWith("eval-") && name.endsWith(".code.v8")) : []);
  /** `eval-test <target> --mock` with `env`, which must pass. */
  const evalTest = async (target: string, env: Record<string, string>) => {
    const result = await retrace(["eval-test", target, "--mock"], { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return result;
  };
  /** A suite of `count` one-case files. */
  const filesSuite = (count: number) => suite(Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index}.eval.mjs`, file(`answer ${index}`)])));
  /** Every entry (code or note) the cache holds for one eval file. */
  const entriesOf = (cache: string, path: string) => {
    const place = `eval-${createHash("sha256").update(path).digest("hex").slice(0, 16)}-`;
    return existsSync(cache) ? readdirSync(cache).filter((name) => name.startsWith(place)) : [];
  };

  it(
    "is written by a text's second run, read by the ones after, replaced when the file changes or the cache is damaged",
    async () => {
      const dir = suite({ "cached.eval.mjs": file("one") });
      const cache = join(dir, ".cache");
      const env = { RETRACE_CODE_CACHE: cache };
      const run = async () => {
        const result = await retrace(["eval-test", dir, "--mock", "--reporter", `json=${join(dir, "report.json")}`], { env });
        expect(result.code, result.stdout + result.stderr).toBe(0);
        return readJsonReport(join(dir, "report.json")).cases.map((entry) => entry.status);
      };
      const seen = () => readdirSync(cache).filter((name) => name.endsWith(".seen.v8"));
      // The first run is the module's, and notes the text.
      expect(await run()).toEqual(["passed"]);
      expect(evalCaches(cache)).toEqual([]);
      expect(seen()).toHaveLength(1);
      // The second runs the script and keeps its code.
      expect(await run()).toEqual(["passed"]);
      const [first] = evalCaches(cache);
      expect(first).toBeDefined();
      expect(seen()).toEqual([]);
      const written = statSync(join(cache, first as string)).mtimeMs;
      expect(await run()).toEqual(["passed"]);
      // Read, not written again.
      expect(evalCaches(cache)).toEqual([first]);
      expect(statSync(join(cache, first as string)).mtimeMs).toBe(written);

      writeFileSync(join(dir, "cached.eval.mjs"), file("two"));
      expect(await run()).toEqual(["passed"]);
      // A new text is noted, and the old text's code goes.
      expect(evalCaches(cache)).toEqual([]);
      expect(await run()).toEqual(["passed"]);
      const [second] = evalCaches(cache);
      expect(evalCaches(cache)).toHaveLength(1);
      expect(second).not.toBe(first);

      // A damaged file, garbage or a damaged body behind an intact header (V8 would crash reading
      // that one: found in review), is no cache: the file is a module's again, then a script's.
      for (const damage of [(bytes: Buffer) => Buffer.alloc(bytes.length, 7), (bytes: Buffer) => Buffer.from(bytes.map((byte, at) => (at >= bytes.length - 40 ? byte ^ 0xff : byte)))]) {
        const entry = join(cache, (evalCaches(cache)[0] ?? second) as string);
        const damaged = damage(readFileSync(entry));
        writeFileSync(entry, damaged);
        expect(await run()).toEqual(["passed"]);
        expect(await run()).toEqual(["passed"]);
        expect(evalCaches(cache)).toHaveLength(1);
        expect(readFileSync(join(cache, evalCaches(cache)[0] as string)).equals(damaged)).toBe(false);
      }
    },
    processes(11),
  );

  it(
    "keeps the entries of the eval files used last, and no more",
    async () => {
      const dir = suite({ "a.eval.mjs": file("a"), "b.eval.mjs": file("b"), "c.eval.mjs": file("c") });
      const cache = join(dir, ".cache");
      const env = { RETRACE_CODE_CACHE: cache, RETRACE_CODE_CACHE_EVAL_ENTRIES: "2" };
      // Two runs each: a text's code is kept from its second run.
      for (const name of ["a", "a", "b", "b", "c", "c"]) {
        const result = await retrace(["eval-test", join(dir, `${name}.eval.mjs`), "--mock"], { env });
        expect(result.code, result.stdout + result.stderr).toBe(0);
      }
      // a's entry went when c's was written; b's and c's stay.
      const of = (name: string) => `eval-${createHash("sha256").update(join(dir, `${name}.eval.mjs`)).digest("hex").slice(0, 16)}-`;
      const kept = evalCaches(cache);
      expect(kept.map((entry) => entry.slice(0, of("a").length)).sort()).toEqual([of("b"), of("c")].sort());
      const again = await retrace(["eval-test", join(dir, "b.eval.mjs"), "--mock"], { env });
      expect(again.code).toBe(0);
      expect(evalCaches(cache)).toEqual(kept);

      // And no more bytes than its bound: one entry's worth keeps a's (twice: the first run of a
      // text whose entry went only notes it), this run's, and not b's and c's.
      const bytes = Math.max(...kept.map((entry) => statSync(join(cache, entry)).size));
      for (let run = 0; run < 2; run++) {
        const bounded = await retrace(["eval-test", join(dir, "a.eval.mjs"), "--mock"], { env: { ...env, RETRACE_CODE_CACHE_EVAL_BYTES: String(bytes + 100) } });
        expect(bounded.code).toBe(0);
      }
      expect(evalCaches(cache)).toHaveLength(1);
      expect(evalCaches(cache)[0]?.startsWith(of("a"))).toBe(true);
    },
    processes(9),
  );

  it(
    "keeps its entries when a bound in the environment is not a positive whole number (found in review: NaN emptied the folder)",
    async () => {
      const dir = suite({ "a.eval.mjs": file("a") });
      const cache = join(dir, ".cache");
      for (const bad of ["abc", "0", "-5", ""]) {
        // A new text each time: its first run notes it, its second writes its entry and bounds the cache.
        writeFileSync(join(dir, "a.eval.mjs"), file(`a ${bad}`));
        const env = { RETRACE_CODE_CACHE: cache, RETRACE_CODE_CACHE_EVAL_ENTRIES: bad, RETRACE_CODE_CACHE_EVAL_BYTES: bad };
        for (let run = 0; run < 2; run++) await evalTest(dir, env);
        expect(evalCaches(cache), bad).toHaveLength(1);
      }
    },
    processes(8),
  );

  it(
    "keeps every file of a suite bigger than the old bound of 64, so that a third run compiles nothing",
    async () => {
      const dir = filesSuite(65);
      const cache = join(dir, ".cache");
      const run = () => evalTest(dir, { RETRACE_CODE_CACHE: cache });
      await run();
      await run();
      const written = new Map(evalCaches(cache).map((entry) => [entry, statSync(join(cache, entry)).mtimeMs]));
      expect(written.size).toBe(65);
      await run();
      // Every entry read, none written again (with 64, one went each run and was compiled the next).
      expect(new Map(evalCaches(cache).map((entry) => [entry, statSync(join(cache, entry)).mtimeMs]))).toEqual(written);
    },
    processes(3),
  );

  it(
    "is written at exit by one listener, whatever the number of files (found in review: a listener each warned from the eighth)",
    async () => {
      const dir = filesSuite(12);
      for (let run = 0; run < 2; run++) {
        const result = await evalTest(dir, { RETRACE_CODE_CACHE: join(dir, ".cache") });
        expect(result.stderr).not.toContain("MaxListenersExceededWarning");
      }
      expect(evalCaches(join(dir, ".cache"))).toHaveLength(12);
    },
    processes(2),
  );

  it(
    "leaves a CommonJS eval file to Node, which gives it require (found in review)",
    async () => {
      const dir = suite({
        "package.json": '{ "name": "cjs-project" }',
        "a.eval.js": `const { defineEval } = require("retrace-agents");\n${file("cjs").split("\n").slice(1).join("\n")}`,
      });
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(root, join(dir, "node_modules", "retrace-agents"));
      // Twice: a script's code would be kept from the second run; a module's is neither kept nor noted.
      for (let run = 0; run < 2; run++) {
        const result = await retrace(["eval-test", dir, "--mock"], { env: { RETRACE_CODE_CACHE: join(dir, ".cache") } });
        expect(result.code, result.stdout + result.stderr).toBe(0);
      }
      expect(entriesOf(join(dir, ".cache"), join(dir, "a.eval.js"))).toEqual([]);
    },
    processes(2),
  );

  it(
    "is not written when the cache is off",
    async () => {
      const dir = suite({ "cached.eval.mjs": file("one") });
      // Twice, as a kept script needs; the folder a cache would be in is the checkout's.
      for (let run = 0; run < 2; run++) {
        const result = await retrace(["eval-test", dir, "--mock"], { env: { RETRACE_CODE_CACHE: "off" } });
        expect(result.code, result.stdout + result.stderr).toBe(0);
      }
      expect(entriesOf(join(root, "node_modules", ".cache", "retrace-agents"), join(dir, "cached.eval.mjs"))).toEqual([]);
      // The same two runs with the cache on keep the file's code there.
      for (let run = 0; run < 2; run++) expect((await retrace(["eval-test", dir, "--mock"])).code).toBe(0);
      expect(entriesOf(join(root, "node_modules", ".cache", "retrace-agents"), join(dir, "cached.eval.mjs"))).toEqual([expect.stringMatching(/\.code\.v8$/)]);
    },
    processes(4),
  );
});
