/**
 * Bundles as tests: an eval case names a bundle instead of a mock script, the captured run
 * replays with the case's config, and the case's assertions run over the replayed log. A
 * changed agent diverges: without a mock the case fails and says where and what changed;
 * with one, the mock answers from the divergence and the assertions judge the changed run.
 */
import { copyFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, useTempDirs } from "../e2e/harness.js";
import { BUNDLES, cli, FIXTURES } from "./scenarios.js";

const tempDir = useTempDirs();

function project(): string {
  const dir = tempDir();
  cpSync(join(FIXTURES, "blocked-failed"), join(dir, "agent"), { recursive: true });
  copyFileSync(join(BUNDLES, "blocked-failed.tgz"), join(dir, "incident.tgz"));
  return dir;
}

// Imported by path: the temp project has no node_modules to resolve retrace-agents from.
const CASE = (extra: string, body: string) => `import { defineEval } from ${JSON.stringify(join(ROOT, "src/index.ts"))};
defineEval({
  name: "incident: the .env write stays blocked",
  config: "./agent/agent.yaml",
  replay: "./incident.tgz",${extra}
  test: (t) => {
${body}
  },
});
`;

describe("an eval case that replays a bundle", () => {
  it("passes when the replayed log satisfies its assertions", async () => {
    const dir = project();
    writeFileSync(join(dir, "incident.eval.ts"), CASE("", '    t.toolWasBlocked("write_file", { reason: "policy_denied" });\n    t.completed();'));
    const { code, io } = await cli(dir, ["eval-test", "incident.eval.ts", "--mock", "--reporter", "json"]);
    expect(code, io.err + io.out).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ summary: { passed: 1 } });
  });

  it("fails an assertion the replayed log does not satisfy", async () => {
    const dir = project();
    writeFileSync(join(dir, "incident.eval.ts"), CASE("", '    t.outputContains("all done");'));
    const { code } = await cli(dir, ["eval-test", "incident.eval.ts", "--mock"]);
    expect(code).toBe(1);
  });

  it("a changed agent without a mock fails the case with the divergence and the changed word", async () => {
    const dir = project();
    const config = join(dir, "agent/agent.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("answer briefly", "answer at length"));
    writeFileSync(join(dir, "incident.eval.ts"), CASE("", "    t.completed();"));
    const { code, io } = await cli(dir, ["eval-test", "incident.eval.ts", "--mock"]);
    expect(code).toBe(1);
    expect(io.out + io.err).toContain("diverged at run");
    expect(io.out + io.err).toContain("{+at length+}");
  });

  it("a changed agent with a mock continues from the divergence, and the assertions judge the changed run", async () => {
    const dir = project();
    const config = join(dir, "agent/agent.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("answer briefly", "answer at length"));
    writeFileSync(
      join(dir, "incident.eval.ts"),
      CASE('\n  mock: { responses: [{ text: "I will not write .env, and 2 + something is not a sum." }] },', '    t.usedNoTools();\n    t.outputContains("not write .env");'),
    );
    const { code, io } = await cli(dir, ["eval-test", "incident.eval.ts", "--mock"]);
    expect(code, io.err + io.out).toBe(0);
  });
});

describe("retrace score", () => {
  const ASSERTIONS = `import { defineEval } from ${JSON.stringify(join(ROOT, "src/index.ts"))};
defineEval({
  name: "blocked",
  config: "./agent/agent.yaml",
  test: (t) => {
    t.toolWasBlocked("write_file", { reason: "policy_denied" });
    t.completed();
  },
});
defineEval({
  name: "says done",
  config: "./agent/agent.yaml",
  test: (t) => t.outputContains("all done"),
});
`;

  it("applies a case's assertions to a bundle's run without running anything", async () => {
    const dir = project();
    writeFileSync(join(dir, "checks.eval.ts"), ASSERTIONS);
    const passing = await cli(dir, ["score", "incident.tgz", "--eval", "checks.eval.ts", "--case", "blocked"]);
    expect(passing.code, passing.io.err).toBe(0);
    expect(passing.io.out).toContain("PASS  blocked");
    expect(passing.io.out).toContain("1 of 1 case(s) passed");
    const all = await cli(dir, ["score", "incident.tgz", "--eval", "checks.eval.ts", "--json"]);
    expect(all.code).toBe(1);
    const report = JSON.parse(all.io.out) as { cases: { name: string; status: string }[] };
    expect(report.cases.map((item) => [item.name, item.status])).toEqual([["blocked", "passed"], ["says done", "failed"]]);
  });

  it("scores a run id from a store, and leaves the store as it was", async () => {
    const dir = project();
    writeFileSync(join(dir, "checks.eval.ts"), ASSERTIONS);
    const run = await cli(join(dir, "agent"), ["run", "agent.yaml", "--mock", "mock.yaml", "-m", "go", "--json", "--db", "../runs.db"]);
    const { runId } = JSON.parse(run.io.out) as { runId: string };
    const before = readFileSync(join(dir, "runs.db"));
    const scored = await cli(dir, ["score", runId, "--db", "runs.db", "--eval", "checks.eval.ts", "--case", "blocked"]);
    expect(scored.code, scored.io.err).toBe(0);
    expect(readFileSync(join(dir, "runs.db")).equals(before)).toBe(true);
  });
});
