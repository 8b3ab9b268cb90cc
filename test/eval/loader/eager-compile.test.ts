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
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEvalFiles } from "../../../src/eval/loader/index.js";
import { ownModule } from "../../../src/eval/loader/self-imports.js";
import { tempDir } from "../../helpers.js";

/** Compiles a script holding one big uncalled function; true when its bytecode was made. Each source is new (V8 caches compiles by source). */
const PROBE = `(vm) => {
  const count = (globalThis.__eagerProbes = (globalThis.__eagerProbes ?? 0) + 1);
  const source = "// probe " + count + "\\nfunction uncalled() { " + "a = a + 1; ".repeat(2000) + " }";
  return new vm.Script(source).createCachedData().length > 8000;
}`;
const compilesEagerly = (0, eval)(PROBE) as (module: typeof vm) => boolean;

/** An eval file that names its one case by how its own load compiled: "eager" or "lazy". */
function evalFile(extraImports = ""): string {
  return [
    'import { defineEval } from "retrace-agents";',
    'import vm from "node:vm";',
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
