/**
 * An eval file that imports only Retrace and Node's built-ins is compiled whole as it loads:
 * its functions (a test per case, their callbacks) are nearly all called once each, and a lazy
 * compile parses each twice. Lazy compilation is back once the load has ended, however it
 * ended, and a file that imports anything else is compiled as Node always compiles it.
 *
 * What is compiled is read from V8's code cache of a probe script: it holds the bytecode of
 * every function compiled with the script, so an uncalled function's is there only when V8
 * compiled eagerly.
 */
import vm from "node:vm";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ownLazyFlag } from "../../../src/eval/loader/eager-compile.js";
import { loadEvalFiles } from "../../../src/eval/loader/index.js";
import { ownModule } from "../../../src/eval/loader/self-imports.js";
import { processes, retrace } from "../../cli/run-cli.js";
import { tempDir } from "../../helpers.js";

/** The built-in modules Node had loaded each time lazy compiling was turned off. */
const loadedAtNoLazy = vi.hoisted((): string[][] => []);
vi.mock("node:v8", async (actual) => {
  const v8 = await actual<typeof import("node:v8")>();
  const setFlagsFromString = (flags: string): void => {
    if (flags === "--no-lazy") loadedAtNoLazy.push([...loadedBuiltins()]);
    v8.setFlagsFromString(flags);
  };
  return { ...v8, default: { ...v8, setFlagsFromString }, setFlagsFromString };
});

function loadedBuiltins(): string[] {
  const list = (process as unknown as { moduleLoadList: readonly string[] }).moduleLoadList;
  return list.filter((entry) => entry.startsWith("NativeModule ")).map((entry) => entry.slice("NativeModule ".length));
}

/** Compiles a script holding one big uncalled function; true when its bytecode was made. Each source is new (V8 caches compiles by source). */
const PROBE = `(vm) => {
  const count = (globalThis.__eagerProbes = (globalThis.__eagerProbes ?? 0) + 1);
  const source = "// probe " + count + "\\nfunction uncalled() { " + "a = a + 1; ".repeat(2000) + " }";
  return new vm.Script(source).createCachedData().length > 8000;
}`;
const compilesEagerly = (0, eval)(PROBE) as (module: typeof vm) => boolean;

/**
 * An eval file that names its one case by how its own load compiled: "eager" or "lazy". It
 * exports something, so that it is imported as a module (one that exports nothing runs as a
 * script, compiled whole before any of it runs: script.test.ts).
 */
function evalFile(extraImports = ""): string {
  return [
    'import { defineEval } from "retrace-agents";',
    'import vm from "node:vm";',
    "export const module = true;",
    extraImports,
    `const eager = (${PROBE})(vm);`,
    'defineEval({ name: eager ? "eager" : "lazy", config: {}, test: (t) => t.completed() });',
    "",
  ].join("\n");
}

describe("compiling an eval file as it loads", () => {
  beforeAll(async () => {
    // The running Retrace's faces are loaded before any eval file, as the CLI has them.
    await import(ownModule("") as string);
  });

  it("compiles a file that imports only Retrace and Node's built-ins whole, then compiles lazily again", async () => {
    expect(compilesEagerly(vm)).toBe(false);
    const dir = tempDir();
    writeFileSync(join(dir, "only-retrace.eval.mjs"), evalFile('export * from "node:path";'));
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((spec) => spec.name)).toEqual(["eager"]);
    expect(compilesEagerly(vm)).toBe(false);
  });

  it("compiles lazily, as Node does, a file that imports a path, a package or anything dynamically", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "helper.mjs"), "export const helper = 1;\n");
    writeFileSync(join(dir, "relative.eval.mjs"), evalFile('import { helper } from "./helper.mjs";'));
    writeFileSync(join(dir, "dynamic.eval.mjs"), evalFile('await import("node:os");'));
    const loaded = await loadEvalFiles([dir], dir);
    expect(loaded.map((file) => [file.file, file.error, file.cases.map((spec) => spec.name)])).toEqual([
      ["dynamic.eval.mjs", undefined, ["lazy"]],
      ["relative.eval.mjs", undefined, ["lazy"]],
    ]);
  });

  it("loads the built-ins a file imports before compiling whole: a built-in compiled whole costs several times its lazy compile", async () => {
    const unloaded = ["dgram", "repl", "wasi", "trace_events", "cluster", "http2", "domain"].find((name) => !loadedBuiltins().includes(name));
    expect(unloaded, "a built-in this process has not loaded").toBeDefined();
    const dir = tempDir();
    writeFileSync(join(dir, "builtin.eval.mjs"), evalFile(`import "node:${unloaded}";`));
    loadedAtNoLazy.length = 0;
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.cases.map((spec) => spec.name)).toEqual(["eager"]);
    expect(loadedAtNoLazy).toHaveLength(1);
    expect(loadedAtNoLazy[0]).toContain(unloaded);
  });

  it("compiles lazily again after a file whose top level throws, or never settles", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a-throws.eval.mjs"), evalFile('throw new Error("broken fixture");'));
    writeFileSync(join(dir, "b-hangs.eval.mjs"), evalFile("await new Promise(() => {});"));
    const loaded = await loadEvalFiles([dir], dir, { timeoutMs: 50 });
    expect(loaded.map((file) => file.error?.code)).toEqual(["eval_load", "eval_load_timeout"]);
    expect(loaded[0]?.error?.message).toContain("broken fixture");
    expect(compilesEagerly(vm)).toBe(false);
  });
});

describe("the flags a process ends with", () => {
  it("tells a lazy flag the process was started with from the others", () => {
    expect(ownLazyFlag([])).toBe(false);
    expect(ownLazyFlag(["--max-old-space-size=512", "--lazy-feedback-allocation", "--no-warnings"])).toBe(false);
    for (const flag of ["--lazy", "--no-lazy", "--nolazy", "--no_lazy", "--lazy=false"]) {
      expect([flag, ownLazyFlag([flag]), ownLazyFlag(["--trace-warnings", flag])]).toEqual([flag, true, true]);
    }
  });

  it(
    "keeps a process's own --no-lazy: its cases run compiled whole after the load too",
    async () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, "own-flag.eval.mjs"),
        [
          'import { defineEval } from "retrace-agents";',
          'import vm from "node:vm";',
          'const config = { name: "a", system_prompt: "Say hi.", llm: { provider: "openai" } };',
          'defineEval({ name: "still eager", config, mock: { responses: [{ text: "hi" }] }, test: async (t) => {',
          '  await t.send("hi");',
          "  t.check((" + PROBE + ")(vm), (eager) => eager === true);",
          "} });",
          "",
        ].join("\n"),
      );
      const result = await retrace(["eval-test", dir, "--mock"], { node: ["--no-lazy"], env: { RETRACE_CODE_CACHE: "off" } });
      expect(result.code, result.stdout + result.stderr).toBe(0);
    },
    processes(1),
  );

  it(
    "writes a code cache the next start accepts when an eval file ends the process as it loads",
    async () => {
      const dir = tempDir();
      const cache = join(dir, "cache");
      writeFileSync(join(dir, "exits.eval.mjs"), `${evalFile()}process.exit(0);\n`);
      const temp = join(dir, "tmp");
      mkdirSync(temp);
      // No process here refreshes a cache it accepted: a changed file means a rejected one.
      const env = { RETRACE_CODE_CACHE: cache, RETRACE_CODE_CACHE_REFRESH_AFTER_S: "100000" };
      const first = await retrace(["eval-test", dir, "--mock"], { env: { ...env, TMPDIR: temp } });
      expect(first.code, first.stderr).toBe(0);
      // The file was loaded from a copy (Retrace is not installed beside it), removed as the process ended.
      expect(readdirSync(temp)).toEqual([]);
      const files = readdirSync(cache).filter((name) => name.endsWith(".v8"));
      expect(files).toHaveLength(1);
      const written = readFileSync(join(cache, files[0] as string));
      const next = await retrace(["--help"], { env });
      expect(next.code, next.stderr).toBe(0);
      expect(readdirSync(cache).filter((name) => name.endsWith(".v8"))).toEqual(files);
      expect(readFileSync(join(cache, files[0] as string)).equals(written)).toBe(true);
    },
    processes(2),
  );
});
