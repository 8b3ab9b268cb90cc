/**
 * The eval loader reads an eval file's imports with es-module-lexer, whose memory never shrinks
 * from the longest text it read; so it reads only up to the last "import"/"export" line, and
 * must find exactly what reading the whole text finds.
 */
import fc from "fast-check";
import { init, parse } from "es-module-lexer";
import { describe, expect, it } from "vitest";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { imports, ownModule, planImport, planTypeScript, type ImportPlan } from "../../../src/eval/loader/self-imports.js";
import { ownPackage } from "../../../src/package-info.js";
import { tempDir } from "../../helpers.js";

/** Lines a module is made of: imports of every form (some over several lines), and code that only mentions them. */
const line = fc.constantFrom(
  'import { defineEval } from "retrace";',
  "import {\n  defineEval,\n  t,\n} from 'retrace-agents';",
  'import data from "./data.json" with { type: "json" };',
  'export * from "./helpers.js";',
  "export { x } from\n  './x.js';",
  "export *\n  from 'retrace-agents';",
  "export * as ns\n from './x.js';",
  "export { a }\n from './x.js';",
  "export { a } // a note\n /* and a block */ from './x.js';",
  "await import\n  ('./late.mjs');",
  "import {\n  a\n}\n  from 'retrace' with\n  { type: 'json' };",
  "(async () => { await 1; })();",
  "export { a as b } /* z\nz */ from './x.js';",
  "export /* z\nz */ * from './x.js';",
  "export * /* z\nz */ as ns from './x.js';",
  "export * as\nns from './x.js';",
  "export * as // why\nns from './x.js';",
  "const here = import.\nmeta.url;",
  "const later = import.\ndefer('./x.js');",
  "/** @typedef {object} T */",
  "// an old note, commented out",
  "const crlf = 1;\r",
  "export const answer = 42;",
  'const lazy = await import("./lazy.mjs");',
  "const computed = await import(\n  './a' + suffix\n);",
  "const url = import.meta.url;",
  'const text = "import x from \\"not-an-import\\"";',
  "// import { y } from 'a comment';",
  "/* export * from 'another comment' */",
  "const template = `line one\nimport { z } from 'inside a template'\nline three`;",
  'defineEval({ name: "case", config: "./agent.yaml", test: async (t) => { await t.send("hi"); t.completed(); } });',
  "const reimported = 1; const exports_ = 2;",
  "",
);

function whole(text: string): unknown {
  try {
    return parse(text)[0];
  } catch {
    return undefined;
  }
}

describe("eval file imports", () => {
  it("reading up to the last import line finds what reading the whole text finds", async () => {
    await init;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.array(fc.constantFrom("", "\n", "  ", "x"), { maxLength: 3 }), fc.constantFrom("\n", "\r\n", "\n// a note\n", "\n/* a\nblock */\n"), (lines, tail, separator) => {
        const text = lines.join(separator) + tail.join("");
        expect(imports(text)).toStrictEqual(whole(text));
      }),
      { numRuns: 800 },
    );
  });

  it("an unfinished statement at the cut is read to its end; a text with no import has none", async () => {
    await init;
    const multi = `import {\n  a,\n  b,\n} from "retrace";\n${"defineEval({});\n".repeat(2000)}`;
    expect(imports(multi)).toStrictEqual(whole(multi));
    expect(imports(multi)?.[0]?.specifier).toBe("retrace");
    expect(imports("const plain = 1;\n")).toStrictEqual([]);
    // A re-export whose `from` is on the next line reads as finished at the cut (found in review).
    const reexport = 'export *\n  from "retrace-agents";\n';
    expect(imports(reexport)?.map((entry) => entry.specifier)).toStrictEqual(["retrace-agents"]);
    // A multi-line comment longer than a read-ahead between a re-export and its `from`.
    const long = `export * as ns\n/*${"x\n".repeat(9000)}*/\nfrom "retrace";\n`;
    expect(imports(long)?.map((entry) => entry.specifier)).toStrictEqual(["retrace"]);
  });

  it("answers at once after many comments (no backtracking that doubles per comment)", async () => {
    await init;
    const commented = `import { defineEval } from "retrace";\n${"/** @typedef {object} T */\n".repeat(40)}${"// old notes, commented out\n".repeat(200)}defineEval({});\n`;
    // Run it: a regular expression that backtracked took seconds at 20 such comments and doubled with each one.
    expect(imports(commented)?.map((entry) => entry.specifier)).toStrictEqual(["retrace"]);
    // Broken code after the last import is not read: its imports are found, and Node reports the
    // break when it loads the file (the same "cannot load: Unexpected end of input" as before).
    const broken = 'import { a } from "retrace";\nconst s = `never closed';
    expect(imports(broken)?.map((entry) => entry.specifier)).toStrictEqual(["retrace"]);
    expect(imports('import { a } from "retrace";\nimport "unfinished')).toBeUndefined();
  });
});

describe("how a compiled TypeScript eval file is imported", () => {
  const code = 'import { defineEval } from "retrace-agents";\nimport { sep } from "node:path";\ndefineEval({ name: sep, config: {}, test: () => {} });\n';

  it("as a script, or from a rewritten copy when it exports something, when it imports only Retrace (not installed, or installed as this very copy) and Node's built-ins", async () => {
    const dir = tempDir();
    const exporting = `${code}export const x = 1;\n`;
    expect((await planTypeScript(join(dir, "a.eval.ts"), code)).kind).toBe("script");
    const plan = await planTypeScript(join(dir, "a.eval.ts"), exporting);
    expect(plan.kind).toBe("copy");
    expect(plan.kind === "copy" && plan.text).toContain(JSON.stringify(ownModule("")));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ownPackage().root, join(dir, "node_modules", "retrace-agents"));
    expect((await planTypeScript(join(dir, "a.eval.ts"), code)).kind).toBe("script");
    expect((await planTypeScript(join(dir, "a.eval.ts"), exporting)).kind).toBe("copy");
  });

  it("through the hooks when the project has another copy of Retrace, a relative import, or import.meta", async () => {
    const other = tempDir();
    mkdirSync(join(other, "node_modules", "retrace-agents"), { recursive: true });
    writeFileSync(join(other, "node_modules", "retrace-agents", "package.json"), '{"name":"retrace-agents","version":"9.9.9"}');
    expect((await planTypeScript(join(other, "a.eval.ts"), code)).kind).toBe("hooks");
    const dir = tempDir();
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}import { helper } from "./helper.js";\n`)).kind).toBe("hooks");
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}const here = import.meta.url;\n`)).kind).toBe("hooks");
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}import { z } from "zod";\n`)).kind).toBe("hooks");
    // A path or a URL may name TypeScript, or a module that imports Retrace: found in review.
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}import { h } from "${join(dir, "lib", "h.ts")}";\n`)).kind).toBe("hooks");
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}import { h } from "file:///x/h.mjs";\n`)).kind).toBe("hooks");
    expect((await planTypeScript(join(dir, "a.eval.ts"), `${code}const h = await import("/x/h.ts");\n`)).kind).toBe("hooks");
  });
});

describe("which eval files are compiled whole as they load (eager)", () => {
  const head = 'import { defineEval } from "retrace-agents";\nimport { sep } from "node:path";\nexport * from "node:os";\n';
  const eager = (plan: ImportPlan) => [plan.kind, (plan.kind === "native" || plan.kind === "copy") && plan.eager !== undefined];

  it("a file importing only the running Retrace and Node's built-ins, statically, copied or native", async () => {
    const dir = tempDir();
    const file = join(dir, "a.eval.mjs");
    expect(eager(await planImport(file, head))).toEqual(["copy", true]);
    expect(eager(await planTypeScript(join(dir, "a.eval.ts"), head))).toEqual(["copy", true]);
    // What it imports is loaded before it, as usual: a built-in compiled whole costs several times its lazy compile.
    const plan = await planImport(file, `${head}import { join } from "node:path";\nimport * as again from "retrace";\n`);
    expect((plan.kind === "native" || plan.kind === "copy") && plan.eager).toEqual([ownModule(""), "node:path", "node:os"]);
    // esbuild's inline source map is a comment to V8, not code to compile: found in review.
    const long = `${head}export const text = ${JSON.stringify("x".repeat(700 * 1024))};\n`;
    const map = `//# sourceMappingURL=data:application/json;base64,${Buffer.from("y".repeat(500 * 1024)).toString("base64")}\n`;
    expect(eager(await planTypeScript(join(dir, "a.eval.ts"), `${long}${map}`))).toEqual(["copy", true]);
    expect(eager(await planTypeScript(join(dir, "a.eval.ts"), `${long}${long.slice(head.length).replace("text", "more")}${map}`))).toEqual(["copy", false]);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ownPackage().root, join(dir, "node_modules", "retrace-agents"));
    expect(eager(await planImport(file, head))).toEqual(["native", true]);
  });

  it("not a file that imports anything that may bring in code it never calls", async () => {
    const dir = tempDir();
    const file = join(dir, "a.eval.mjs");
    expect(eager(await planImport(file, `${head}import { helper } from "./helper.mjs";\n`))).toEqual(["copy", false]);
    expect(eager(await planImport(file, `${head}const os = await import("node:os");\n`))).toEqual(["copy", false]);
    expect(eager(await planImport(file, `${head}import { useCassette } from "retrace-agents/vitest";\n`))).toEqual(["copy", false]);
    // createRequire (or register) would load any package from the file's top level: found in review.
    expect(eager(await planImport(file, `${head}import { createRequire } from "node:module";\n`))).toEqual(["copy", false]);
    expect(eager(await planImport(file, `${head}import { createRequire } from "module";\n`))).toEqual(["copy", false]);
    expect(eager(await planTypeScript(join(dir, "a.eval.ts"), `${head}const os = await import("node:os");\n`))).toEqual(["copy", false]);
    // Parsed whole, a file this long would hold its whole syntax tree at once.
    expect(eager(await planImport(file, `${head}// ${"x".repeat(1024 * 1024)}\n`))).toEqual(["copy", false]);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ownPackage().root, join(dir, "node_modules", "retrace-agents"));
    expect(eager(await planImport(file, `${head}import { z } from "zod";\n`))).toEqual(["native", false]);
    const other = tempDir();
    mkdirSync(join(other, "node_modules", "retrace-agents"), { recursive: true });
    writeFileSync(join(other, "node_modules", "retrace-agents", "package.json"), '{"name":"retrace-agents","version":"9.9.9"}');
    expect(eager(await planImport(join(other, "a.eval.mjs"), head))).toEqual(["native", false]);
  });
});
