/**
 * TypeScript eval files, without a build step and without a module-loader hook.
 *
 * A loader hook (tsx's `register`) runs every later import in this process through a hooks
 * thread, which measured at about 220 ms and 35 MiB on a one-case run — more than running a
 * thousand cases. Instead, each eval file is bundled once by esbuild (its local imports
 * inlined, types stripped) into a temp folder, and imported from there:
 *
 * - package imports stay imports, rewritten to the absolute file Node would load for the eval
 *   file, so `import { defineEval } from "retrace-agents"` reaches the very module the CLI runs;
 *   esbuild resolves them with Node's conditions (no "module" field, no tsconfig paths). All
 *   files are built in one esbuild call with no plugin (a plugin makes esbuild wait on this
 *   thread for every import) and the package imports are rewritten after; a file that uses
 *   `import.meta` goes through the plugin path below;
 * - `retrace-agents` itself, when the eval file's project does not have it installed, resolves to
 *   the copy of Retrace that is running;
 * - `import.meta.url`, `.dirname` and `.filename` keep the eval file's own values;
 * - a source map beside each module maps the stack frames the report shows back to the eval
 *   file's own lines (and Node's own stack traces too, under node --enable-source-maps);
 * - the temp folder is removed once the files are imported.
 *
 * Trade-off: a helper module imported by two eval files is bundled into each, so module-level
 * state in it is not shared between files.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isBuiltin } from "node:module";
import { basename, dirname, join, relative as relativePath, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BuildOptions, Message, OnResolveArgs, Plugin, PluginBuild } from "esbuild";
import { init as initLexer, parse as parseModule } from "es-module-lexer";
import { ownPackage, PACKAGE_NAME, SELF_SPECIFIER } from "../../package-info.js";
import { registerSourceMap } from "./source-maps.js";

export type Compiled = { module: string } | { error: string };

export interface Compilation {
  /** The module to import for `file`, once it is compiled. */
  get(file: string): Promise<Compiled>;
  /** Removes the temp folder and stops esbuild; call once every module is imported. */
  dispose(): void;
}

/** Not relative, not absolute, not a URL: a package (or a built-in) that Node resolves. */
function isBare(specifier: string): boolean {
  return !/^(?:\.{1,2}(?:\/|$)|\/|[a-zA-Z]:[\\/]|node:|file:|data:)/.test(specifier);
}

function externals(transform: typeof import("esbuild").transform): Plugin {
  return {
    name: "retrace-externals",
    setup(build: PluginBuild) {
      build.onResolve({ filter: /.*/ }, async (args: OnResolveArgs) => {
        if (!isBare(args.path) || (args.pluginData as { inner?: boolean } | undefined)?.inner) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { inner: true } });
        if (found.external || found.errors.length === 0) {
          // Built-ins stay as written; packages become the absolute file Node would load.
          return found.external ? { path: args.path, external: true } : { path: pathToFileURL(found.path).href, external: true };
        }
        if (SELF_SPECIFIER.test(args.path)) {
          const own = await build.resolve(args.path, { kind: args.kind, resolveDir: ownPackage().root, pluginData: { inner: true } });
          if (own.errors.length === 0) return { path: pathToFileURL(own.path).href, external: true };
        }
        return { errors: found.errors };
      });
      // Local modules keep their own import.meta values, not the temp file's. The values are
      // put in by esbuild's define (on the syntax tree, so strings that mention import.meta
      // stay as written), with a source map that the bundle's own map composes with.
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const loader = /\.[cm]?tsx?$/.test(args.path) ? (args.path.endsWith("x") ? "tsx" : "ts") : args.path.endsWith("x") ? "jsx" : "js";
        const result = await transform(source, {
          loader,
          format: "esm",
          sourcefile: args.path,
          sourcemap: "inline",
          tsconfigRaw: "{}",
          define: {
            "import.meta.url": JSON.stringify(pathToFileURL(args.path).href),
            "import.meta.dirname": JSON.stringify(dirname(args.path)),
            "import.meta.filename": JSON.stringify(args.path),
          },
        });
        return { contents: result.code, loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

const INSTALL_HINT = ` (install it: npm install --save-dev ${PACKAGE_NAME})`;

function describeMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column + 1}: ` : "";
  const hint = message.text.startsWith(`Could not resolve "${PACKAGE_NAME}`) ? INSTALL_HINT : "";
  return `${where}${message.text}${hint}`;
}

const COMMON = {
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  target: `node${process.versions.node.split(".")[0]}`,
  // Node's own resolution: no "module" condition or field, no tsconfig paths.
  conditions: [],
  mainFields: ["main"],
  tsconfigRaw: "{}",
  // A map file beside each module, named by a comment that Node reads only when source maps are
  // on (node --enable-source-maps), so a run that throws nothing never parses a map; the runner
  // maps the frames it reports through originalPosition, decoding a map only when it needs one.
  sourcemap: "linked",
  sourcesContent: false,
  logLevel: "silent",
} satisfies BuildOptions;

type Esbuild = typeof import("esbuild");

/**
 * `text` with the specifiers of its imports (static, re-exports, and dynamic imports of a
 * string) replaced by their targets. The lexer gives each specifier's exact place, so a string
 * or a comment that only looks like an import stays as written.
 */
function rewriteSpecifiers(text: string, targets: ReadonlyMap<string, string>): string {
  const [imports] = parseModule(text);
  const places: { start: number; end: number; target: string }[] = [];
  for (const entry of imports) {
    if (entry.type === "import-meta" || entry.specifier === undefined || (entry.type === "dynamic" && entry.glob)) continue;
    const target = targets.get(entry.specifier);
    if (target === undefined) continue;
    // A static specifier's place excludes its quotes; a dynamic import's argument includes them.
    places.push(entry.type === "dynamic" ? { start: entry.start, end: entry.end, target } : { start: entry.start - 1, end: entry.end + 1, target });
  }
  places.sort((a, b) => a.start - b.start);
  let out = "";
  let last = 0;
  for (const place of places) {
    out += text.slice(last, place.start) + JSON.stringify(place.target);
    last = place.end;
  }
  return out + text.slice(last);
}

function errorText(error: unknown): string {
  const messages = (error as { errors?: Message[] }).errors;
  return messages?.length ? messages.slice(0, 3).map(describeMessage).join("; ") : (error as Error).message;
}

/**
 * Resolves package specifiers the way the full plugin does (Node's conditions; `retrace-agents` falls
 * back to the running copy), one small build per folder they are imported from.
 */
async function resolvePackages(api: Esbuild, wanted: Map<string, Set<string>>): Promise<Map<string, string | Error>> {
  const resolved = new Map<string, string | Error>();
  for (const [resolveDir, specifiers] of wanted) {
    const found = new Map<string, string>();
    const plugin: Plugin = {
      name: "retrace-resolve",
      setup(build) {
        build.onResolve({ filter: /.*/ }, async (args) => {
          if (!isBare(args.path) || (args.pluginData as { inner?: boolean } | undefined)?.inner) return undefined;
          let hit = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { inner: true } });
          if (hit.errors.length && SELF_SPECIFIER.test(args.path)) hit = await build.resolve(args.path, { kind: args.kind, resolveDir: ownPackage().root, pluginData: { inner: true } });
          if (hit.errors.length === 0 && !hit.external) found.set(args.path, pathToFileURL(hit.path).href);
          return { path: args.path, external: true };
        });
      },
    };
    const contents = [...specifiers].map((specifier) => `import ${JSON.stringify(specifier)};`).join("\n");
    await api.build({ ...COMMON, sourcemap: false, stdin: { contents, resolveDir, loader: "js" }, plugins: [plugin] });
    for (const specifier of specifiers) {
      resolved.set(`${resolveDir}\0${specifier}`, found.get(specifier) ?? new Error(`Could not resolve "${specifier}"${SELF_SPECIFIER.test(specifier) ? INSTALL_HINT : ""}`));
    }
  }
  return resolved;
}

/**
 * The fast path: one build of every file with packages left as imports (no plugin, so esbuild
 * never waits on this thread), then each package import rewritten to the file Node would load.
 * Files that need more — `import.meta`, a package that resolves differently for two of their
 * modules — are left for the plugin path.
 */
async function buildTogether(
  api: Esbuild,
  files: readonly string[],
  outputs: readonly string[],
  dir: string,
  maps: Map<string, string>,
): Promise<Map<string, string | { error: string }>> {
  const result = await api.build({
    ...COMMON,
    packages: "external",
    metafile: true,
    entryPoints: files.map((file, index) => ({ in: file, out: `${index}/${basename(outputs[index] as string, ".mjs")}` })),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
  });
  const cwd = process.cwd();
  const texts = new Map(result.outputFiles.map((output) => [output.path, output.text]));
  for (const output of result.outputFiles) if (output.path.endsWith(".map")) maps.set(output.path.slice(0, -4), output.text);
  const plans = new Map<string, Map<string, string>>();
  const wanted = new Map<string, Set<string>>();
  for (const [relative, output] of Object.entries(result.metafile.outputs)) {
    const out = resolve(cwd, relative);
    const specifiers = new Map<string, string>();
    let simple = true;
    for (const input of Object.keys(output.inputs)) {
      const path = resolve(cwd, input);
      if (readFileSync(path, "utf8").includes("import.meta")) simple = false;
      for (const imported of result.metafile.inputs[input]?.imports ?? []) {
        if (!imported.external || !isBare(imported.path) || isBuiltin(imported.path)) continue;
        const resolveDir = dirname(path);
        const earlier = specifiers.get(imported.path);
        if (earlier !== undefined && earlier !== resolveDir) simple = false;
        specifiers.set(imported.path, resolveDir);
        if (!wanted.has(resolveDir)) wanted.set(resolveDir, new Set());
        wanted.get(resolveDir)?.add(imported.path);
      }
    }
    if (simple) plans.set(out, specifiers);
  }
  const resolved = await resolvePackages(api, wanted);
  await initLexer();
  const compiled = new Map<string, string | { error: string }>();
  files.forEach((file, index) => {
    const out = outputs[index] as string;
    const plan = plans.get(out);
    const text = texts.get(out);
    if (!plan || text === undefined) return;
    const targets = new Map<string, string>();
    for (const [specifier, resolveDir] of plan) {
      const target = resolved.get(`${resolveDir}\0${specifier}`);
      if (target instanceof Error || target === undefined) {
        compiled.set(file, { error: `${displayPath(file)}: ${target?.message ?? `Could not resolve "${specifier}"`}` });
        return;
      }
      targets.set(specifier, target);
    }
    compiled.set(file, rewriteSpecifiers(text, targets));
  });
  return compiled;
}

function displayPath(file: string): string {
  const shown = relativePath(process.cwd(), file);
  return shown.startsWith("..") ? file : shown;
}

/** Starts compiling `files` (in esbuild, a process of its own); each file's module can be awaited. */
export function compileTypeScript(files: readonly string[]): Compilation {
  const dir = mkdtempSync(join(tmpdir(), "retrace-eval-load-"));
  const pending = new Map<string, { promise: Promise<Compiled>; resolve: (compiled: Compiled) => void }>();
  for (const file of files) {
    let resolve!: (compiled: Compiled) => void;
    const promise = new Promise<Compiled>((done) => (resolve = done));
    pending.set(file, { promise, resolve });
  }
  const esbuild = import("esbuild");
  const outputs = files.map((file, index) => join(dir, `${index}`, `${basename(file).replace(/\.m?ts$/, "")}.mjs`));
  const maps = new Map<string, string>();
  const save = (file: string, out: string, contents: string | Uint8Array): void => {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, contents);
    const map = maps.get(out);
    if (map !== undefined) {
      writeFileSync(`${out}.map`, map);
      registerSourceMap(out, map);
    }
    pending.get(file)?.resolve({ module: out });
  };
  const work = (async () => {
    const api = await esbuild;
    let together = new Map<string, string | { error: string }>();
    try {
      together = await buildTogether(api, files, outputs, dir, maps);
    } catch {
      // Some file does not compile; the per-file path below puts the error on the file that has it.
    }
    const plugin = externals(api.transform);
    await Promise.all(
      files.map(async (file, index) => {
        const out = outputs[index] as string;
        const done = together.get(file);
        if (typeof done === "string") return save(file, out, done);
        if (done) return pending.get(file)?.resolve(done);
        try {
          const result = await api.build({ ...COMMON, plugins: [plugin], entryPoints: [file], outfile: out });
          const map = result.outputFiles.find((output) => output.path.endsWith(".map"));
          if (map) maps.set(out, map.text);
          const contents = result.outputFiles.find((output) => !output.path.endsWith(".map"))?.contents;
          if (!contents) throw new Error("esbuild produced no output");
          save(file, out, contents);
        } catch (error) {
          pending.get(file)?.resolve({ error: errorText(error) });
        }
      }),
    );
  })().catch((error: unknown) => {
    // esbuild itself could not start: every file gets the reason.
    for (const entry of pending.values()) entry.resolve({ error: `cannot compile TypeScript: ${(error as Error).message}` });
  });
  return {
    get(file) {
      return pending.get(file)?.promise ?? Promise.resolve({ error: "not compiled" });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
      // The esbuild service is a child process; nothing else needs it once the files are loaded.
      void work.then(() => esbuild).then((api) => api.stop());
    },
  };
}
