/**
 * The example runs bundles are captured from, each made the way a user makes it: through the
 * CLI (in-process), into a real SQLite store in a temp copy of its fixture folder.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext } from "../../src/context/index.js";
import { main } from "../../src/cli/main.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { captureIO, FAKE_KEYS, ROOT, type CapturedIO } from "../e2e/harness.js";
import { simulate, type Server } from "../e2e/simulated-api.js";

export const FIXTURES = join(ROOT, "fixtures/bundles");
export const BUNDLES = join(ROOT, "bundles");

export interface MadeRun {
  dir: string;
  runId: string;
  /** Extra arguments capture needs (the cassette). */
  captureArgs: string[];
  env: Record<string, string>;
}

export async function cli(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; io: CapturedIO }> {
  const io = captureIO(env, dir);
  const code = await main(args, io);
  return { code, io };
}

function copyFixture(name: string, dir: string): void {
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  mkdirSync(join(dir, "workspace"), { recursive: true });
}

async function runJson(dir: string, args: string[], env: Record<string, string> = {}, expected = 0): Promise<{ runId: string; pending?: { callId: string }[] }> {
  const { code, io } = await cli(dir, ["run", ...args, "--json"], env);
  expect(code, io.err).toBe(expected);
  return JSON.parse(io.out) as { runId: string; pending?: { callId: string }[] };
}

export interface Scenario {
  name: string;
  make(dir: string, server: Server): Promise<MadeRun>;
}

export const SCENARIOS: Scenario[] = [
  {
    name: "blocked-failed",
    async make(dir) {
      copyFixture("blocked-failed", dir);
      const { runId } = await runJson(dir, ["agent.yaml", "--mock", "mock.yaml", "-m", "Add 2 and something, and store the token in .env"]);
      return { dir, runId, captureArgs: [], env: {} };
    },
  },
  {
    name: "approval-multi-turn",
    async make(dir) {
      copyFixture("approval-multi-turn", dir);
      const first = await runJson(dir, ["agent.yaml", "--mock", "mock.yaml", "-m", "Save a todo: ship the release"], {}, 3);
      const callId = first.pending?.[0]?.callId as string;
      expect((await cli(dir, ["approve", first.runId, callId, "--by", "dana"])).code).toBe(0);
      expect((await cli(dir, ["resume", first.runId])).code).toBe(0);
      // A second turn of the same run, as a chat front end sends it.
      const agent = await buildAgent(loadConfig(join(dir, "agent.yaml"), {}), { env: {}, mock: join(dir, "mock.yaml") });
      const store = new SqliteRunStore(join(dir, ".retrace/runs.db"));
      try {
        const outcome = await AgentRun.open(agent, first.runId, { store, context: createRunContext() }).send("What do my notes say?");
        expect(outcome.status).toBe("completed");
      } finally {
        store.close();
      }
      return { dir, runId: first.runId, captureArgs: [], env: {} };
    },
  },
  {
    name: "parallel-sub-agent",
    async make(dir) {
      copyFixture("parallel-sub-agent", dir);
      const { runId } = await runJson(dir, ["agent.yaml", "--mock", "mock.yaml", "-m", "What is 6 times 7, and what is forty plus two?"]);
      return { dir, runId, captureArgs: [], env: {} };
    },
  },
  {
    name: "openai-wire",
    async make(dir, server) {
      copyFixture("openai-wire", dir);
      const usage = { input: 100, output: 10, cacheRead: 0 };
      simulate(server, "openai", {
        url: "https://api.openai.com/v1/chat/completions",
        model: "gpt-4o-mini-2024-07-18",
        turns: [
          { kind: "tool_call", id: "call_wire1", name: "calculator", args: { expression: "2 + 2" }, usage },
          { kind: "text", deltas: ["2 + 2 ", "= 4."], usage },
        ],
      });
      const env = { ...FAKE_KEYS };
      const { runId } = await runJson(dir, ["agent.yaml", "-m", "What is 2 + 2?", "--record", "cassettes"], env);
      return { dir, runId, captureArgs: ["--cassette", "cassettes/agent.cassette.json"], env };
    },
  },
];

/** Makes the scenario's run and captures it; returns the bundle's path. */
export async function captureScenario(scenario: Scenario, dir: string, server: Server, out = join(dir, `${scenario.name}.tgz`)): Promise<{ file: string; made: MadeRun }> {
  const made = await scenario.make(dir, server);
  const { code, io } = await cli(dir, ["capture", made.runId, "-o", out, ...made.captureArgs], made.env);
  expect(code, io.err).toBe(0);
  return { file: out, made };
}
