/**
 * The package's runtime is one bundled file loaded through a V8 code cache (scripts/bundle.mjs,
 * src/runtime/load.cjs). A cache is code, so what matters is that it never changes an answer:
 * a command gives the same output with a fresh cache, a reused one, a corrupt one and none; a
 * corrupt cache is replaced; a folder others may write into is never used; and the CLI and an
 * eval file's `import "retrace-agents"` share one copy of Retrace.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processes, retrace } from "../cli/run-cli.js";

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

const run = (cache: string) => retrace(["eval-test", project, "--mock", "--reporter", "json"], { env: { RETRACE_CODE_CACHE: cache } });
const verdict = (stdout: string) => {
  const report = JSON.parse(stdout) as { summary: { passed: number; failed: number; score: number | null }; cases: { name: string; status: string; score: number | null }[] };
  const { passed, failed, score } = report.summary;
  return { summary: { passed, failed, score }, cases: report.cases.map(({ name, status, score }) => ({ name, status, score })) };
};

describe("the runtime's code cache", () => {
  it(
    "gives the same answers with a new, a reused, a corrupt and no cache, and replaces a corrupt one",
    async () => {
      setUp();
      const cache = join(work, "cache");
      const fresh = await run(cache);
      expect(fresh.code, fresh.stderr).toBe(0);
      const files = readdirSync(cache).filter((name) => name.endsWith(".v8"));
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

      const none = await run("off");
      expect(none.code, none.stderr).toBe(0);
      const expected = verdict(none.stdout);
      expect(expected.summary).toMatchObject({ passed: 1, failed: 0 });
      for (const result of [fresh, reused, corrupt]) expect(verdict(result.stdout)).toEqual(expected);
      for (const result of [fresh, reused, corrupt, none]) expect(result.stderr).toBe("");
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
