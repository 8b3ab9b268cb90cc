/**
 * The package's runtime is one bundled file loaded through a V8 code cache (scripts/bundle.mjs,
 * src/runtime/load.cjs). A cache is code, so what matters is that it never changes an answer:
 * a command gives the same output with a fresh cache, a reused one, a corrupt one and none; a
 * corrupt cache is replaced; a folder others may write into is never used; and the CLI and an
 * eval file's `import "retrace-agents"` share one copy of Retrace.
 */
import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processes, retrace, root } from "../cli/run-cli.js";

const work = mkdtempSync(join(tmpdir(), "retrace-code-cache-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// One case whose custom scorer is registered by the eval file and used by the runner: it passes
// only when both see the same registry, i.e. the same copy of Retrace.
const project = join(work, "project");
const evalFile = `import { defineEval, defineScorer, passed, failed, registerScorer, RetraceError } from "retrace";
registerScorer(defineScorer({ name: "test/shout", score: ({ output }) => (output === "HELLO" ? passed("loud") : failed("quiet")) }));
defineEval({
  name: "one copy",
  config: { name: "a", system_prompt: "Say hello.", llm: { provider: "openai" } },
  mock: { responses: [{ text: "HELLO" }] },
  test: async (t) => {
    await t.send("hi");
    await t.judge("test/shout");
    t.check(new RetraceError("x") instanceof Error, (value) => value === true);
  },
});
`;

function setUp(): void {
  if (existsSync(project)) return;
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "one.eval.mjs"), evalFile);
}

/** The runtime's cache files in a cache folder (eval files run as scripts keep theirs beside them, as eval-*.code.v8 and eval-*.seen.v8: script.test.ts). */
const cacheFiles = (folder: string) => readdirSync(folder).filter((name) => name.endsWith(".v8") && !name.startsWith("eval-"));

const run = (cache: string) => retrace(["eval-test", project, "--mock", "--reporter", "json"], { env: { RETRACE_CODE_CACHE: cache } });
const verdict = (stdout: string) => {
  const report = JSON.parse(stdout) as { summary: { passed: number; failed: number; score: number | null }; cases: { name: string; status: string; score: number | null }[] };
  const { passed, failed, score } = report.summary;
  return { summary: { passed, failed, score }, cases: report.cases.map(({ name, status, score }) => ({ name, status, score })) };
};

/**
 * A run that uses much more of the runtime than the one-case project (the repo's eval suite with
 * tools, a policy and sub-agents, and every reporter), allowed to refresh the cache at any age.
 */
function bigSuite(cache: string, name: string) {
  const big = join(work, `${name}-project`);
  mkdirSync(big, { recursive: true });
  copyFileSync(join(root, "examples/hello/agent.yaml"), join(big, "agent.yaml"));
  writeFileSync(join(big, "one.eval.mjs"), evalFile);
  const out = join(work, `${name}-out`);
  return retrace(
    ["eval-test", join(root, "eval"), big, "--mock", "--reporter", `json=${out}.json`, "--reporter", `junit=${out}.xml`, "--reporter", `markdown=${out}.md`, "--reporter", `html=${out}.html`],
    { env: { RETRACE_CODE_CACHE: cache, RETRACE_CODE_CACHE_REFRESH_AFTER_S: "0" } },
  );
}

describe("the runtime's code cache", () => {
  it(
    "gives the same answers with a new, a reused, a corrupt and no cache, and replaces a corrupt one",
    async () => {
      setUp();
      const cache = join(work, "cache");
      const fresh = await run(cache);
      expect(fresh.code, fresh.stderr).toBe(0);
      const files = cacheFiles(cache);
      expect(files).toHaveLength(1);
      const file = join(cache, files[0] as string);
      const written = readFileSync(file);
      expect(written.length).toBeGreaterThan(0);
      expect(statSync(cache).mode & 0o077).toBe(0);

      const reused = await run(cache);
      expect(reused.code, reused.stderr).toBe(0);
      expect(readFileSync(file).equals(written)).toBe(true);

      writeFileSync(file, Buffer.alloc(written.length, 0x5a));
      const corrupt = await run(cache);
      expect(corrupt.code, corrupt.stderr).toBe(0);
      expect(readFileSync(file)[0]).not.toBe(0x5a);

      // V8 checks a cache's header, not its body: a damaged body used to crash every start (SIGTRAP).
      const damaged = Buffer.from(readFileSync(file));
      for (let at = damaged.length - 40; at < damaged.length; at++) damaged[at] = (damaged[at] as number) ^ 0xff;
      writeFileSync(file, damaged);
      const body = await run(cache);
      expect(body.code, body.stderr).toBe(0);
      expect(readFileSync(file).equals(damaged)).toBe(false);

      const none = await run("off");
      expect(none.code, none.stderr).toBe(0);
      const expected = verdict(none.stdout);
      expect(expected.summary).toMatchObject({ passed: 1, failed: 0 });
      for (const result of [fresh, reused, corrupt, body]) expect(verdict(result.stdout)).toEqual(expected);
      for (const result of [fresh, reused, corrupt, body, none]) expect(result.stderr).toBe("");
    },
    processes(5),
  );

  it(
    "is written again by a process that used more of the runtime than the cache it found held (the CLI and the library over the CLI alone, --version)",
    async () => {
      setUp();
      const cache = join(work, "levels");
      const files = () => cacheFiles(cache);
      expect((await retrace(["--version"], { env: { RETRACE_CODE_CACHE: cache } })).code).toBe(0);
      expect(files()).toEqual([expect.stringMatching(/\.L2\.v8$/)]);
      expect((await run(cache)).code).toBe(0);
      expect(files()).toEqual([expect.stringMatching(/\.L3\.v8$/)]);
      const written = readFileSync(join(cache, files()[0] as string));
      expect((await run(cache)).code).toBe(0);
      expect((await retrace(["--version"], { env: { RETRACE_CODE_CACHE: cache } })).code).toBe(0);
      expect(readFileSync(join(cache, files()[0] as string)).equals(written)).toBe(true);
      expect(files()).toHaveLength(1);
    },
    processes(4),
  );

  it(
    "is written again at its own level by a process that compiled clearly more of the runtime than the cache it found",
    async () => {
      setUp();
      const cache = join(work, "refresh");
      const files = () => cacheFiles(cache);
      // A one-case suite writes the CLI-and-library cache first.
      expect((await run(cache)).code).toBe(0);
      const [name] = files();
      const small = readFileSync(join(cache, name as string));
      // A suite that uses much more of the runtime (tools, a policy, sub-agents, every reporter) replaces it.
      const refreshed = await bigSuite(cache, "big");
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(files()).toEqual([name]);
      expect(readFileSync(join(cache, name as string)).length).toBeGreaterThan(small.length * 1.25);
      // A short process (the default age) leaves the bigger cache alone.
      const kept = readFileSync(join(cache, name as string));
      expect((await run(cache)).code).toBe(0);
      expect(readFileSync(join(cache, name as string)).equals(kept)).toBe(true);
    },
    processes(3),
  );

  it(
    "is asked about again only by a process that ran clearly longer than the longest that asked before",
    async () => {
      setUp();
      const cache = join(work, "asked");
      const files = () => cacheFiles(cache);
      expect((await run(cache)).code).toBe(0);
      const [name] = files();
      const small = readFileSync(join(cache, name as string));
      // Its writer did not ask (it found no cache): the first long run after it must.
      const note = join(cache, `${name}.asked`);
      expect(existsSync(note)).toBe(false);
      const bigRun = () => bigSuite(cache, "asked");
      // Someone asked after a far longer run: a bigger suite does not build a cache to compare.
      writeFileSync(note, "1000000");
      expect((await bigRun()).code).toBe(0);
      expect(readFileSync(join(cache, name as string)).equals(small)).toBe(true);
      expect(readFileSync(note, "utf8")).toBe("1000000");
      // Nobody asked: the same suite refreshes it, and notes how long it ran.
      rmSync(note);
      expect((await bigRun()).code).toBe(0);
      expect(readFileSync(join(cache, name as string)).length).toBeGreaterThan(small.length * 1.25);
      expect(Number(readFileSync(note, "utf8"))).toBeGreaterThan(0);
      // A new cache written without asking (this one damaged, so rewritten) starts with no note.
      writeFileSync(join(cache, name as string), Buffer.alloc(16, 0x5a));
      expect((await run(cache)).code).toBe(0);
      expect(existsSync(note)).toBe(false);
      expect(readdirSync(cache).filter((file) => file.endsWith(".tmp"))).toEqual([]);
    },
    processes(4),
  );

  it(
    "never reads or writes a cache folder that others may write into",
    async () => {
      setUp();
      const shared = join(work, "shared");
      mkdirSync(shared, { recursive: true });
      chmodSync(shared, 0o777);
      const result = await run(shared);
      expect(result.code, result.stderr).toBe(0);
      expect(readdirSync(shared)).toEqual([]);
    },
    processes(1),
  );
});

describe("the runtime's code cache and an edited bundle", () => {
  it("runs an edit of the bundle that keeps its length (V8 checks only the length), not the cached code", async () => {
    // A copy of the package's runtime, so that its bundle can be edited.
    const pkg = join(work, "edited");
    mkdirSync(join(pkg, "dist", "runtime"), { recursive: true });
    for (const name of readdirSync(join(root, "dist", "runtime"))) copyFileSync(join(root, "dist", "runtime", name), join(pkg, "dist", "runtime", name));
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    const bundle = join(pkg, "dist", "runtime", "retrace.cjs");
    const cache = join(work, "edited-cache");
    const help = () =>
      new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ["-e", `require(${JSON.stringify(join(pkg, "dist", "runtime", "load.cjs"))}).main(["--help"])`],
          { env: { PATH: process.env.PATH ?? "", RETRACE_CODE_CACHE: cache } },
          (error, out, err) => (error ? reject(new Error(err)) : resolve(out)),
        ),
      );
    expect(await help()).toContain("Usage: retrace");
    expect(cacheFiles(cache)).toHaveLength(1);
    expect(await help()).toContain("Usage: retrace");
    // The same length, other bytes: only a cache keyed on the file itself notices.
    const text = readFileSync(bundle, "latin1");
    writeFileSync(bundle, text.replace("Usage: retrace", "Usage: RETRACE"), "latin1");
    expect(statSync(bundle).size).toBe(text.length);
    expect(await help()).toContain("Usage: RETRACE");
  }, processes(3));
});

describe("the code cache of an install", () => {
  it("is still the current one after the bundle is extracted again, the same bytes under a new inode (npm ci before a CI cache is restored)", async () => {
    const pkg = join(work, "extracted");
    mkdirSync(join(pkg, "dist", "runtime"), { recursive: true });
    for (const name of readdirSync(join(root, "dist", "runtime"))) copyFileSync(join(root, "dist", "runtime", name), join(pkg, "dist", "runtime", name));
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    const cache = join(work, "extracted-cache");
    const version = () =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ["-e", `require(${JSON.stringify(join(pkg, "dist", "runtime", "load.cjs"))}).main(["--version"])`], { env: { PATH: process.env.PATH ?? "", RETRACE_CODE_CACHE: cache } }, (error, out, err) =>
          error ? reject(new Error(err)) : resolve(out),
        ),
      );
    expect(await version()).toMatch(/\d+\.\d+\.\d+/);
    const [written] = cacheFiles(cache);
    const writtenAt = statSync(join(cache, written as string)).mtimeMs;
    // Extracted again: a new file, the same bytes, the time npm gives every file it extracts.
    const bundle = join(pkg, "dist", "runtime", "retrace.cjs");
    const bytes = readFileSync(bundle);
    writeFileSync(`${bundle}.new`, bytes);
    renameSync(`${bundle}.new`, bundle);
    const npmTime = new Date("1985-10-26T08:15:00Z");
    utimesSync(bundle, npmTime, npmTime);
    expect(await version()).toMatch(/\d+\.\d+\.\d+/);
    // Read, not compiled and written again under another name.
    expect(cacheFiles(cache)).toEqual([written]);
    expect(statSync(join(cache, written as string)).mtimeMs).toBe(writtenAt);
  }, processes(2));


  it("removes the caches this install made for this Node before its last build, and keeps another install's and another Node's", async () => {
    // An install as npm lays it out: <project>/node_modules/retrace-agents, its cache beside it.
    const project = join(work, "installed");
    const pkg = join(project, "node_modules", "retrace-agents");
    mkdirSync(join(pkg, "dist", "runtime"), { recursive: true });
    for (const name of readdirSync(join(root, "dist", "runtime"))) copyFileSync(join(root, "dist", "runtime", name), join(pkg, "dist", "runtime", name));
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    const folder = join(project, "node_modules", ".cache", "retrace-agents");
    const help = () =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ["-e", `require(${JSON.stringify(join(pkg, "dist", "runtime", "load.cjs"))}).main(["--help"])`], { env: { PATH: process.env.PATH ?? "" } }, (error, out, err) =>
          error ? reject(new Error(err)) : resolve(out),
        ),
      );
    expect(await help()).toContain("Usage: retrace");
    const [current] = cacheFiles(folder);
    // <bundle's sha256>-<place>-<node>-<arch>.L<level>.v8
    const [stamp, place] = (current as string).split("-");
    const node = `${process.version}-${process.arch}`;
    const earlierBuild = `${stamp}-${place}-1-2-3-${node}.L3.v8`;
    const otherInstall = `${stamp}-p00000000-1-2-3-${node}.L3.v8`;
    const otherNode = `${stamp}-${place}-1-2-3-v18.0.0-${process.arch}.L3.v8`;
    const leftover = `${stamp}-${place}-1-2-3-${node}.L3.v8.999.tmp`;
    const earlierNote = `${earlierBuild}.asked`;
    const old = new Date(Date.UTC(2020, 0, 1));
    for (const name of [earlierBuild, earlierNote, otherInstall, otherNode, leftover]) {
      writeFileSync(join(folder, name), "old", { mode: 0o600 });
      utimesSync(join(folder, name), name === leftover ? old : new Date(), old);
    }
    // The next process that writes a cache tidies the folder.
    rmSync(join(folder, current as string));
    expect(await help()).toContain("Usage: retrace");
    const left = readdirSync(folder);
    expect(left).toContain(current);
    expect(left).toContain(otherInstall);
    expect(left).toContain(otherNode);
    expect(left).not.toContain(earlierBuild);
    expect(left).not.toContain(earlierNote);
    expect(left).not.toContain(leftover);
  }, processes(2));
});

describe("the package's faces", () => {
  it("import and require of retrace-agents (and /testing) reach one copy of Retrace", async () => {
    const consumer = join(work, "consumer");
    mkdirSync(join(consumer, "node_modules"), { recursive: true });
    symlinkSync(root, join(consumer, "node_modules", "retrace-agents"));
    const script = [
      'import { createRequire } from "node:module";',
      'import { RetraceError, defineEval } from "retrace-agents";',
      'import { ScriptedModel } from "retrace-agents/testing";',
      "const require = createRequire(import.meta.url);",
      'const required = require("retrace-agents");',
      "console.log(JSON.stringify({",
      "  sameClass: required.RetraceError === RetraceError,",
      "  sameFunction: required.defineEval === defineEval,",
      '  testing: require("retrace-agents/testing").ScriptedModel === ScriptedModel,',
      "}));",
    ].join("\n");
    writeFileSync(join(consumer, "check.mjs"), script);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["check.mjs"], { cwd: consumer, env: { PATH: process.env.PATH ?? "", RETRACE_CODE_CACHE: "off" } }, (error, out, err) => (error ? reject(new Error(err)) : resolve(out))),
    );
    expect(JSON.parse(stdout)).toEqual({ sameClass: true, sameFunction: true, testing: true });
  }, processes(1));
});
