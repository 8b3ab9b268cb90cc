/**
 * Builds the package's runtime, dist/runtime/, from tsc's output (dist/src/, dist/scorers/):
 *
 *   retrace.cjs        src/package-entry.ts and everything it reaches, with zod, yaml and the
 *                      interceptors, as one CommonJS file (the SDKs, SQLite, esbuild and tar
 *                      stay packages, loaded when a command needs them)
 *   load.cjs           loads retrace.cjs through a V8 code cache (src/runtime/load.cjs)
 *   native-import.cjs  Node's own import() for the user's modules
 *   usage.txt          what `retrace --help` prints, for the bin to print without the runtime
 *   index.mjs, testing.mjs, vitest.mjs
 *                      the ESM faces of "retrace-agents", "/testing" and "/vitest"
 *   index.cjs, testing.cjs
 *                      their CommonJS faces (vitest is ESM-only, and so is "/vitest")
 *
 * Why: a command used to load ~400 ES modules (Retrace's own, zod's, yaml's) before it did
 * anything, and Node 20 compiles each on every start. One file, compiled once and then read from
 * the code cache, starts in a fraction of that. Every entry shares the one copy of Retrace, so
 * the CLI, an eval file's `import "retrace-agents"` and the vitest matchers see the same error
 * classes and the same scorer registry. Types stay dist/src/*.d.ts.
 *
 * Run by `npm run build` after tsc.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/runtime");
const nativeImport = join(root, "dist/src/runtime/native-import.js");

// Packages left to Node: native code (better-sqlite3, esbuild), large SDKs a command loads only
// when it talks to a provider, node-tar, and vitest (ESM-only: its entry hands it over instead).
const external = ["better-sqlite3", "esbuild", "openai", "@anthropic-ai/sdk", "tar", "vitest"].flatMap((name) => [name, `${name}/*`]);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(root, "dist/src/package-entry.js")],
  outfile: join(out, "retrace.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  metafile: true,
  logLevel: "warning",
  legalComments: "none",
  // ASCII, so the loader reads it as a one-byte string (no UTF-8 decoding of 1.5 MB each start);
  // no whitespace or comments, which are a quarter of the text. Stack traces map back to dist/src
  // through the linked source map (node --enable-source-maps).
  charset: "ascii",
  minifyWhitespace: true,
  sourcemap: "linked",
  // The bundle is one file: import.meta.url is that file's URL (createRequire, package lookup).
  define: { "import.meta.url": "__retraceModuleUrl" },
  banner: { js: 'const __retraceModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [
    {
      name: "native-import",
      setup(context) {
        // The code cache drops a script's dynamic-import loader, so the user's modules are
        // imported by a file Node compiles itself.
        context.onResolve({ filter: /native-import\.js$/ }, (args) =>
          resolve(args.resolveDir, args.path) === nativeImport ? { path: "./native-import.cjs", external: true } : undefined,
        );
      },
    },
  ],
});

// An import() left in the bundle would fail at run time once the code cache is in use.
for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
  const dynamic = imports.filter((entry) => entry.kind === "dynamic-import" && entry.external);
  if (dynamic.length > 0) throw new Error(`${input}: import() of ${dynamic.map((entry) => entry.path).join(", ")} would reach the bundle; use importNative`);
}

const bundle = readFileSync(join(out, "retrace.cjs"));
const wide = bundle.findIndex((byte) => byte > 0x7f);
if (wide >= 0) {
  const line = bundle.subarray(0, wide).toString("latin1").split("\n").length;
  throw new Error(`dist/runtime/retrace.cjs:${line}: a non-ASCII character the bundler could not escape (a comment or String.raw in the source?): write it as \\u….`);
}
writeFileSync(join(out, "load.cjs"), readFileSync(join(root, "src/runtime/load.cjs"), "utf8"));
writeFileSync(join(out, "native-import.cjs"), '"use strict";\n// Node\'s own import(), compiled by Node (see src/runtime/native-import.ts).\nexports.importNative = (url) => import(url);\n');

// The faces name every export, so `import { defineEval } from "retrace-agents"` links; the
// CommonJS ones are the same objects, for `require`.
const runtime = createRequire(import.meta.url)(join(out, "load.cjs"));
const names = (namespace) => Object.keys(namespace).filter((name) => name !== "default" && name !== "__esModule").sort();
const face = (part, list) =>
  `import { createRequire } from "node:module";\nconst runtime = createRequire(import.meta.url)("./load.cjs");\nexport const { ${list.join(", ")} } = runtime.${part}();\n`;
const requireFace = (part) => `"use strict";\nmodule.exports = require("./load.cjs").${part}();\n`;
writeFileSync(join(out, "index.mjs"), face("api", names(runtime.api())));
writeFileSync(join(out, "index.cjs"), requireFace("api"));
writeFileSync(join(out, "testing.mjs"), face("testing", names(runtime.testing())));
writeFileSync(join(out, "testing.cjs"), requireFace("testing"));
writeFileSync(
  join(out, "vitest.mjs"),
  [
    'import * as vitest from "vitest";',
    'import { createRequire } from "node:module";',
    'const runtime = createRequire(import.meta.url)("./load.cjs");',
    "export const { useCassette, retraceMatchers, toRunView, viewRun, cassettePathFor } = runtime.vitest(vitest);",
    "",
  ].join("\n"),
);
// `retrace`, `retrace --help`: the bin prints this text without loading the runtime (the one
// command that needs nothing else). Made by main itself, so it is what main prints; tsc's copy
// of it, as the runtime's main would mark the build's code cache as the CLI's (see load.cjs).
let usage = "";
const { main } = await import(pathToFileURL(join(root, "dist/src/cli/main.js")).href);
await main(["--help"], { stdout: (text) => void (usage += text), stderr: () => undefined });
if (!usage.startsWith("retrace")) throw new Error("main printed no usage for --help");
writeFileSync(join(out, "usage.txt"), usage);
const size = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
console.log(`runtime: ${relative(root, join(out, "retrace.cjs"))} ${size(bundle.length)}, ${Object.keys(result.metafile.inputs).length} modules`);
