/**
 * Retrace as another project gets it: this repo packed by npm, the tarball installed by npm into
 * a fresh folder, the suite scaffolded by the installed CLI and run by `npm run eval`; then the
 * installed type declarations compiled in a consumer that has neither @types/node nor
 * skipLibCheck. Real child processes throughout; the only network is npm's registry (and with
 * its cache warm, not even that).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create as createTar } from "tar";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../cli/run-cli.js";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

// npm settings that only say where the network and the cache are; every other npm_* variable
// comes from the `npm test` running this file, and npm_config_local_prefix in particular would
// make the child npm install into this repo instead of the temp project.
const KEEP_NPM = /^npm_config_(registry|cache|cafile|ca|proxy|https_proxy|noproxy|strict_ssl|userconfig|globalconfig|prefer_offline|offline)$/i;

function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(INIT_CWD|NODE_ENV|VITEST.*|NODE_OPTIONS)$/.test(key)) continue;
    if (/^npm_/i.test(key) && !KEEP_NPM.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The command's output, for an assertion message that shows what went wrong. */
function shown(ran: Ran): string {
  return `exit ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;
}

/**
 * better-sqlite3 installs a prebuilt binary that it downloads from GitHub, and compiles from
 * source when it cannot (a minute or more on these machines, which reach only the registry).
 * prebuild-install also looks in a local folder first; giving it the binary this repo's own
 * install already has (same Node, same platform) makes the install the one a user with internet
 * gets, without the compile. Without that binary the install compiles, and still passes.
 */
async function localPrebuilds(dir: string): Promise<Record<string, string>> {
  const sqlite = join(root, "node_modules", "better-sqlite3");
  const binary = join(sqlite, "build", "Release", "better_sqlite3.node");
  if (!existsSync(binary)) return {};
  const { version } = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8")) as { version: string };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  await createTar({ gzip: true, file, cwd: sqlite }, ["build/Release/better_sqlite3.node"]);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

const temp = mkdtempSync(join(tmpdir(), "retrace-fresh-project-"));
const project = join(temp, "my-agent");

// A whole node_modules (with a compiled better-sqlite3, if it came to that) takes a while to
// delete on a busy machine: more than the default hook timeout.
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
}, 2 * 60_000);

describe("a fresh project that installs Retrace from its packed tarball", () => {
  it("installs it, scaffolds with npx retrace init, and npm run eval passes", { timeout: 10 * 60_000 }, async () => {
    // npm test builds dist/ before vitest starts. Packing runs no scripts: prepare would rebuild
    // dist/ while the other test files run the CLI from it.
    expect(existsSync(join(root, "dist", "src", "cli", "main.js")), "dist/ is missing: run npm run build first").toBe(true);
    const env = childEnv(await localPrebuilds(join(temp, "prebuilds")));
    const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", temp], root, env);
    expect(pack.code, shown(pack)).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as { name: string; filename: string; files: { path: string }[] }[];
    expect(packed?.name).toBe("retrace-agents");
    // What an installed Retrace needs, and nothing of the repo besides.
    const paths = packed?.files.map((entry) => entry.path) ?? [];
    for (const needed of ["bin/retrace.js", "dist/src/cli/main.js", "dist/src/index.d.ts", "dist/src/testing/index.js", "dist/src/vitest/index.js", "dist/scorers/index.js"]) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((path) => !/^(bin|dist)\//.test(path) && !/^(package\.json|README\.md|LICENSE)$/.test(path))).toEqual([]);

    // A package.json first, as `npm init -y` makes one: without it npm installs into the nearest
    // parent folder that looks like a project.
    mkdirSync(project);
    const npmInit = await run("npm", ["init", "-y"], project, env);
    expect(npmInit.code, shown(npmInit)).toBe(0);
    const install = await run("npm", ["install", "-D", "--no-audit", "--no-fund", "--prefer-offline", join(temp, packed?.filename ?? "")], project, env);
    expect(install.code, shown(install)).toBe(0);
    // --no: a missing local bin must fail here, not fetch the registry's unrelated "retrace".
    const init = await run("npx", ["--no", "retrace", "init"], project, env);
    expect(init.code, shown(init)).toBe(0);
    expect(init.stdout).toContain("Next: npm run eval\n");
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { name?: string; scripts?: Record<string, string>; devDependencies?: Record<string, string> };
    expect(manifest.name).toBe("my-agent");
    expect(manifest.scripts?.eval).toBe("retrace eval-test --mock");
    expect(manifest.devDependencies?.["retrace-agents"]).toMatch(/^file:.*retrace-agents-.*\.tgz$/);

    const evals = await run("npm", ["run", "eval"], project, env);
    expect(evals.code, shown(evals)).toBe(0);
    expect(evals.stdout).toContain("2 passed · 0 failed (2)");
    expect(evals.stdout).toContain("PASS · exit code 0");
  });

  it("has type declarations that compile with types: [] and skipLibCheck: false", { timeout: 5 * 60_000 }, async () => {
    expect(existsSync(join(project, "node_modules", "retrace-agents", "package.json")), "the install above did not happen").toBe(true);
    // What the check proves holds only if nothing brought Node's types along.
    expect(existsSync(join(project, "node_modules", "@types", "node"))).toBe(false);
    mkdirSync(join(project, "types"));
    writeFileSync(
      join(project, "types", "consumer.mts"),
      `import { defineEval, defineTool, loadConfig, match, AgentRun, type EvalReport, type RunEvent } from "retrace-agents";
import { MemoryRunStore, ScriptedModel, createRunContext, manualClock } from "retrace-agents/testing";
import "retrace-agents/vitest";

export const api: unknown[] = [defineEval, defineTool, loadConfig, match, AgentRun, MemoryRunStore, ScriptedModel, createRunContext, manualClock];
export type Seen = [EvalReport, RunEvent];
`,
    );
    // DOM stays in lib: it is where a project without @types/node gets the web globals Node
    // also has (AbortSignal, fetch, URL), which Retrace's and zod's declarations name.
    const compilerOptions = { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2023", "DOM"], types: [], skipLibCheck: false, noEmit: true };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["types", "eval"] }, null, 2));
    const tsc = await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project], project, childEnv({}));
    expect(tsc.code, shown(tsc)).toBe(0);
    expect(tsc.stdout).toBe("");
  });
});
