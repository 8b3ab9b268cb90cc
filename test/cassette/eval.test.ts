/**
 * Done means, part 3: `retrace eval-test --live --record` writes one cassette per case beside
 * its eval file (the --live LLM judge's call included), then `eval-test --replay` gives the
 * same report with no key and the network refused; a case with no cassette fails saying how to
 * record it; `--cassette-mode auto` records only what is missing.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCassette } from "../../src/cassette/index.js";
import { EvalReportSchema, type EvalReport } from "../../src/eval/report/schema.js";
import { useMockServer } from "../providers/support.js";
import { captureIO, FAKE_KEYS, quickstartAs, retrace, useTempDirs } from "../e2e/harness.js";
import { simulate, type Turn } from "../e2e/simulated-api.js";
import { shellReads } from "../text/shell-reads.js";

const server = useMockServer();
const tempDir = useTempDirs();
const URL = "https://api.openai.com/v1/chat/completions";
const USAGE = { input: 10, output: 5, cacheRead: 0 };

const EVAL_FILE = `import { defineEval } from "retrace-agents";
defineEval({
  name: "adds two numbers",
  config: "./agent.yaml",
  input: "What is 2 + 2?",
  test: async (t) => {
    t.calledTool("calculator");
    t.outputContains("4");
    await t.judge("llm-judge", { rubric: "The answer says 4." });
  },
});
defineEval({
  name: "greets",
  config: "./agent.yaml",
  input: "Say hello.",
  test: async (t) => {
    t.completed();
    t.outputContains("Hello");
  },
});
`;

// In case order (--concurrency 1): the first case's two steps and its judge, then the second case.
const TURNS: Turn[] = [
  { kind: "tool_call", id: "call_1", name: "calculator", args: { expression: "2 + 2" }, usage: USAGE },
  { kind: "text", deltas: ["2 + 2 ", "= 4."], usage: USAGE },
  { kind: "text", deltas: ['{"score": 1, "pass": true, "reason": "it says 4"}'], usage: USAGE },
  { kind: "text", deltas: ["Hello!"], usage: USAGE },
];

function project(): string {
  const dir = tempDir();
  quickstartAs(dir, "openai");
  mkdirSync(join(dir, "eval"));
  writeFileSync(join(dir, "eval", "agent.yaml"), readFileSync(join(dir, "agent.yaml"), "utf8"));
  writeFileSync(join(dir, "eval", "math.eval.ts"), EVAL_FILE);
  return dir;
}

async function evalTest(dir: string, args: string[], env: Record<string, string>): Promise<{ code: number; report: EvalReport; err: string }> {
  const out = join(dir, `report-${args.join("_").replace(/\W+/g, "")}.json`);
  const run = await retrace(["eval-test", "eval", "--concurrency", "1", "--reporter", `json=${out}`, ...args], captureIO(env, dir));
  return { code: run.code, report: EvalReportSchema.parse(JSON.parse(readFileSync(out, "utf8"))), err: run.io.err };
}

/** What a report says, without what differs between any two runs (timings, run ids, digests of wall-clock logs). */
function verdicts(report: EvalReport): unknown {
  // Live runs get fresh ids (a --db store keeps runs across invocations); everything else must agree.
  return JSON.parse(JSON.stringify(verdictsOf(report)).replace(/run_[0-9a-f]{20}/g, "run_*"));
}

function verdictsOf(report: EvalReport) {
  return {
    summary: { ...report.summary, durationMs: 0 },
    cases: report.cases.map((result) => ({
      id: result.id,
      status: result.status,
      score: result.score,
      attempts: result.attempts.map((attempt) => ({ status: attempt.status, score: attempt.score, assertions: attempt.assertions, errors: attempt.errors, notes: attempt.notes })),
    })),
  };
}

function offline<T>(body: () => Promise<T>): Promise<T> {
  server.resetHandlers();
  return body();
}

describe("eval-test with cassettes", () => {
  it("--live --record writes a cassette per case beside the eval file; --replay gives the same report offline with no key", async () => {
    const dir = project();
    const api = simulate(server, "openai", { url: URL, turns: TURNS, model: "gpt-4o-mini" });
    const recorded = await evalTest(dir, ["--live", "--record"], { ...FAKE_KEYS });
    expect(recorded.err).toBe("");
    expect(recorded.code).toBe(0);
    expect(recorded.report.cases.map((result) => result.status)).toEqual(["passed", "passed"]);
    expect(api.requests).toHaveLength(4);

    const folder = join(dir, "eval", "__cassettes__", "math.eval");
    const adds = readCassette(join(folder, "adds two numbers.json"))!;
    // The agent's two steps and the judge's call.
    expect(adds.entries).toHaveLength(3);
    expect(JSON.stringify(adds.entries[2]!.request.body)).toContain("The answer says 4.");
    expect(readCassette(join(folder, "greets.json"))!.entries).toHaveLength(1);
    expect(readFileSync(join(folder, "adds two numbers.json"), "utf8")).not.toContain(FAKE_KEYS.OPENAI_API_KEY);

    const replayed = await offline(() => evalTest(dir, ["--replay"], {}));
    expect(replayed.code).toBe(0);
    expect(replayed.report.mode).toBe("live");
    expect(verdicts(replayed.report)).toEqual(verdicts(recorded.report));
    expect(api.requests).toHaveLength(4);
  });

  it("a case with no cassette fails under --replay, saying how to record it; --cassette-mode auto records just that one", async () => {
    const dir = project();
    simulate(server, "openai", { url: URL, turns: TURNS, model: "gpt-4o-mini" });
    expect((await evalTest(dir, ["--live", "--record"], { ...FAKE_KEYS })).code).toBe(0);
    const folder = join(dir, "eval", "__cassettes__", "math.eval");
    rmSync(join(folder, "greets.json"));

    const replayed = await offline(() => evalTest(dir, ["--replay"], {}));
    expect(replayed.code).toBe(1);
    const greets = replayed.report.cases.find((result) => result.name === "greets")!;
    expect(greets.status).toBe("failed");
    expect(greets.attempts[0]!.errors.join("\n")).toMatch(/greets\.json: no cassette to replay; record it with: retrace eval-test eval\/math\.eval\.ts --live --record -t greets/);
    expect(replayed.report.cases.find((result) => result.name === "adds two numbers")!.status).toBe("passed");

    const api = simulate(server, "openai", { url: URL, turns: [TURNS[3]!], model: "gpt-4o-mini" });
    const auto = await evalTest(dir, ["--cassette-mode", "auto"], { ...FAKE_KEYS });
    expect(auto.code).toBe(0);
    expect(api.requests).toHaveLength(1);
    expect(existsSync(join(folder, "greets.json"))).toBe(true);
  });

  it("refuses cassette flags with --mock, and two of them at once", async () => {
    const dir = project();
    for (const args of [["--mock", "--record"], ["--record", "--replay"], ["--live", "--cassette-mode", "often"]]) {
      const run = await retrace(["eval-test", "eval", ...args], captureIO({}, dir));
      expect(run.code).toBe(2);
    }
  });

  it("the record command it prints for a case with a quote and metacharacters in its name can be pasted into a shell, and -t then picks that case", async () => {
    const dir = project();
    const name = "the calculator's result (1+1)?";
    writeFileSync(join(dir, "eval", "quote.eval.ts"), EVAL_FILE.replace('"greets"', JSON.stringify(name)).replace('"adds two numbers"', '"other"'));
    const replayed = await offline(() => evalTest(dir, ["--replay"], {}));
    const failed = replayed.report.cases.find((result) => result.name === name)!;
    const hint = /record it with: (retrace eval-test .*?) \(or --cassette-mode/.exec(failed.attempts[0]!.errors.join("\n"))?.[1];
    expect(hint).toBeDefined();
    // The shell's reading of the printed command, word by word: before the fix a quote inside '…' was "\'", which no shell reads.
    const words = shellReads(hint!);
    expect(words.slice(0, 5)).toEqual(["retrace", "eval-test", "eval/quote.eval.ts", "--live", "--record"]);
    expect(words[5]).toBe("-t");
    expect(new RegExp(words[6]!).test(name)).toBe(true);
    // A near miss only an unescaped "(1+1)?" would match.
    expect(new RegExp(words[6]!).test("the calculator's result 11")).toBe(false);
  });
});
