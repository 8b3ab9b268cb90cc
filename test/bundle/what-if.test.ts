/**
 * A changed agent: a one-word change of the system prompt is reported at the first model
 * request, with that word in the diff; `--continue mock:` then finishes the changed run, writes
 * it to a store and shows both outcomes side by side. A changed policy diverges where the
 * call is now blocked. `--tools live` re-runs the idempotent tools.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { FAKE_KEYS, useTempDirs } from "../e2e/harness.js";
import { simulate } from "../e2e/simulated-api.js";
import { useMockServer } from "../providers/support.js";
import { captureScenario, cli, SCENARIOS } from "./scenarios.js";

const server = useMockServer();
const tempDir = useTempDirs();
const scenario = (name: string) => SCENARIOS.find((candidate) => candidate.name === name) as (typeof SCENARIOS)[number];

describe("a changed system prompt", () => {
  it("diverges at the first model request, and the diff shows the changed word", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("blocked-failed"), dir, server);
    const changed = join(dir, "changed.yaml");
    writeFileSync(changed, readFileSync(join(dir, "agent.yaml"), "utf8").replace("answer briefly", "answer verbosely"));

    const verdict = await replayBundle(await loadBundle(file), { config: changed });
    expect(verdict.status).toBe("diverged");
    if (verdict.status !== "diverged") return;
    expect(verdict.divergence.expected?.type).toBe("llm.started");
    expect(verdict.divergence.seq).toBe(3);
    expect(verdict.request?.call).toBe(1);
    expect(verdict.request?.lines).toEqual([expect.stringContaining("system: ")]);
    expect(verdict.request?.lines[0]).toContain("answer [-briefly-]{+verbosely+}.");

    const printed = await cli(dir, ["replay", file, "--config", "changed.yaml"]);
    expect(printed.code).toBe(1);
    expect(printed.io.out).toContain(`diverged at run ${verdict.runId} seq 3 (llm.started)`);
    expect(printed.io.out).toContain("  expected: ");
    expect(printed.io.out).toContain("  actual:   ");
    expect(printed.io.out).toMatch(/model request #1 of run \S+ differs from the recording/);
    expect(printed.io.out).toContain("answer [-briefly-]{+verbosely+}.");
  });

  it("--continue mock: finishes the changed run from the divergence, writes it to the store and prints both outcomes", async () => {
    const dir = tempDir();
    const { file, made } = await captureScenario(scenario("blocked-failed"), dir, server);
    writeFileSync(join(dir, "changed.yaml"), readFileSync(join(dir, "agent.yaml"), "utf8").replace("answer briefly", "answer verbosely"));
    writeFileSync(join(dir, "fix.yaml"), 'responses:\n  - tool_calls:\n      - name: calculator\n        arguments: { expression: "2 + 2" }\n  - text: "2 + 2 is 4; I will not touch .env."\n');

    const printed = await cli(dir, ["replay", file, "--config", "changed.yaml", "--continue", "mock:fix.yaml", "--db", "whatif.db"]);
    expect(printed.code).toBe(1);
    const out = printed.io.out;
    expect(out).toContain("answer [-briefly-]{+verbosely+}.");
    expect(out).toContain(`what if — run ${made.runId}-whatif in whatif.db:`);
    expect(out).toMatch(/status\s+completed\s+completed/);
    expect(out).toMatch(/tools called\s+calculator, write_file\s+calculator/);
    expect(out).toMatch(/blocked\s+write_file \(policy_denied\)\s+-/);
    expect(out).toContain("2 + 2 is 4; I will not touch .env.");

    const store = new SqliteRunStore(join(dir, "whatif.db"));
    try {
      const events = store.read(`${made.runId}-whatif`);
      expect(events.at(-1)).toMatchObject({ type: "run.finished", status: "completed", output: "2 + 2 is 4; I will not touch .env." });
      // The calculator ran for real after the divergence: the recording never computed "2 + 2".
      expect(events.find((event) => event.type === "tool.finished")).toMatchObject({ name: "calculator", result: expect.objectContaining({ expression: "2 + 2" }) });
    } finally {
      store.close();
    }
  });
});

describe("other changes and options", () => {
  it("a policy that now denies a call diverges where the call is blocked instead of run", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("parallel-sub-agent"), dir, server);
    writeFileSync(join(dir, "strict.yaml"), `${readFileSync(join(dir, "agent.yaml"), "utf8")}policy:\n  - tool: calculator\n    action: deny\n    reason: no arithmetic today\n`);
    const verdict = await replayBundle(await loadBundle(file), { config: join(dir, "strict.yaml") });
    expect(verdict.status).toBe("diverged");
    if (verdict.status !== "diverged") return;
    expect(verdict.divergence.actual).toMatchObject({ type: "tool.blocked", name: "calculator", reason: "policy_denied" });
  });

  it("a changed sub-agent prompt is found in the child run, before the parent's result that changes with it", async () => {
    const dir = tempDir();
    const { file, made } = await captureScenario(scenario("parallel-sub-agent"), dir, server);
    writeFileSync(join(dir, "researcher.yaml"), readFileSync(join(dir, "researcher.yaml"), "utf8").replace("You look things up.", "You look things up carefully."));
    const verdict = await replayBundle(await loadBundle(file), { config: join(dir, "agent.yaml") });
    expect(verdict.status).toBe("diverged");
    if (verdict.status !== "diverged") return;
    expect(verdict.divergence.runId).toBe(`${made.runId}.call_1_2`);
    expect(verdict.request?.lines[0]).toContain("things up{+ carefully+}.");
  });

  it("--tools live re-runs the idempotent tools and still comes back identical when they behave", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("approval-multi-turn"), dir, server);
    // read_file is idempotent and runs again, in the replay's own empty workspace: its result differs.
    const verdict = await replayBundle(await loadBundle(file), { tools: "live" });
    expect(verdict.status).toBe("diverged");
    if (verdict.status !== "diverged") return;
    expect(verdict.divergence.actual).toMatchObject({ type: "tool.failed", name: "read_file" });
    const calculator = await replayBundle(await loadBundle((await captureScenario(scenario("parallel-sub-agent"), tempDir(), server)).file), { tools: "live" });
    expect(calculator.status).toBe("identical");
  });

  it("inspect --json reports status, tools, approvals, child runs and the checksums", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("approval-multi-turn"), dir, server);
    const { code, io } = await cli(dir, ["inspect", file, "--json"]);
    expect(code).toBe(0);
    const inspection = JSON.parse(io.out) as { checksums: string; runs: { status: string; turns: number; approvals: { granted: number }; tools: { called: string[] } }[] };
    expect(inspection.checksums).toBe("ok");
    expect(inspection.runs[0]).toMatchObject({ status: "completed", turns: 2, approvals: { granted: 1 }, tools: { called: ["write_file", "read_file"] } });
  });
});

describe("--continue live", () => {
  it("goes on against the provider (simulated here) from the divergence, with the key from the environment", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("openai-wire"), dir, server);
    writeFileSync(join(dir, "changed.yaml"), readFileSync(join(dir, "agent.yaml"), "utf8").replace("careful assistant", "terse assistant"));
    const api = simulate(server, "openai", {
      url: "https://api.openai.com/v1/chat/completions",
      model: "gpt-4o-mini",
      turns: [{ kind: "text", deltas: ["4"], usage: { input: 5, output: 1, cacheRead: 0 } }],
    });
    const store = new SqliteRunStore(join(dir, "whatif.db"));
    try {
      const verdict = await replayBundle(await loadBundle(file), { config: join(dir, "changed.yaml"), continue: { live: true }, store, env: { ...FAKE_KEYS } });
      expect(verdict.status).toBe("diverged");
      if (verdict.status !== "diverged") return;
      expect(verdict.request?.lines[0]).toContain("[-careful-]{+terse+}");
      expect(api.requests).toHaveLength(1);
      expect(verdict.replayed).toMatchObject({ status: "completed", output: "4", toolsCalled: [] });
      expect(verdict.recorded).toMatchObject({ status: "completed", toolsCalled: ["calculator"] });
    } finally {
      store.close();
    }
  });

  it("needs the key: without it the replay is refused before anything runs", async () => {
    const dir = tempDir();
    const { file } = await captureScenario(scenario("openai-wire"), dir, server);
    server.resetHandlers();
    const printed = await cli(dir, ["replay", file, "--continue", "live", "--db", "w.db"], {});
    expect(printed.code).toBe(2);
    expect(printed.io.err).toContain("OPENAI_API_KEY");
  });
});
