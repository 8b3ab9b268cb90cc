/**
 * A bundle holds every run the captured run links to, judge runs included: an LLM-judge
 * scorer's question is a run of its own (`<runId>.judge<n>`) whose parent is the judged run.
 * The judged run's log cannot name it (the judge was asked after the run), so capture finds it
 * by its id and takes it only when it names the run as its parent. Replaying the agent does not
 * ask judges again, and the replay is still `identical`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureRun, inspectBundle, loadBundle } from "../../src/bundle/index.js";
import { collectCases, defineEval, type EvalSpec } from "../../src/eval/dsl/index.js";
import { runCases } from "../../src/eval/runner/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { RunLog } from "../../src/store/index.js";
import { manualClock } from "../../src/context/index.js";
import type { RunStore } from "../../src/contracts/index.js";
import { tempDir } from "../helpers.js";

async function judgedCase(dir: string, afterJudge: (store: RunStore, runId: string) => void): Promise<string> {
  writeFileSync(join(dir, "agent.yaml"), "name: judged\nmax_steps: 4\nllm:\n  provider: openai\ntools:\n  - calculator\n");
  writeFileSync(join(dir, "mock.yaml"), 'responses:\n  - tool_calls:\n      - name: calculator\n        arguments: { expression: "2 + 2" }\n  - text: 2 + 2 = 4.\n');
  const spec: EvalSpec = {
    name: "judged",
    config: join(dir, "agent.yaml"),
    mock: join(dir, "mock.yaml"),
    test: async (t) => {
      await t.send("2 + 2?");
      await t.judge("llm-judge", { rubric: "Correct sum", mock: { responses: [{ text: '{"score": 1, "reason": "4 is right"}' }] } });
      afterJudge(t.store, t.runId);
    },
  };
  const cases = await collectCases(undefined, async () => defineEval(spec));
  const [result] = await runCases(
    cases.map((definition) => ({ id: `test > ${definition.name}`, file: join(dir, "judged.eval.ts"), case: definition })),
    { mode: "mock" },
  );
  return result?.status ?? "none";
}

describe("judge runs in a bundle", () => {
  it("are captured with the run they judged, listed as its children, and the replay is identical", async () => {
    const dir = tempDir();
    let bytes: Uint8Array | undefined;
    let judged = "";
    const status = await judgedCase(dir, (store, runId) => {
      judged = runId;
      bytes = captureRun({ store, runId, config: join(dir, "agent.yaml"), mock: join(dir, "mock.yaml") }).bytes;
    });
    expect(status).toBe("passed");
    const bundle = await loadBundle(bytes as Uint8Array);
    expect(bundle.runs.map((run) => [run.runId, run.parent])).toEqual([
      [judged, undefined],
      [`${judged}.judge1`, { runId: judged, callId: "judge_1" }],
    ]);
    expect(bundle.runs[1]?.events.map((event) => event.type)).toEqual(["run.started", "message", "llm.started", "llm.finished", "run.finished"]);
    // `retrace inspect` lists it with the run it judged.
    expect(inspectBundle(bundle).runs.map((run) => [run.runId, run.parent?.runId])).toEqual([
      [judged, undefined],
      [`${judged}.judge1`, judged],
    ]);
    const verdict = await replayBundle(bundle, { env: {} });
    expect(verdict.status).toBe("identical");
  });

  it("leave out a run named like a judge that does not name the run as its parent", async () => {
    const dir = tempDir();
    let bytes: Uint8Array | undefined;
    let judged = "";
    await judgedCase(dir, (store, runId) => {
      judged = runId;
      // A second "judge" id whose run claims another parent: not this run's judge.
      RunLog.create(`${runId}.judge2`, store, manualClock(0, 1)).append<"run.started">({
        type: "run.started",
        agent: { name: "stranger", digest: "0" },
        model: { provider: "scripted", model: "scripted" },
        seed: 1,
        config: null,
        parent: { runId: "someone-else", callId: "judge_2" },
      });
      bytes = captureRun({ store, runId, config: join(dir, "agent.yaml"), mock: join(dir, "mock.yaml") }).bytes;
    });
    const bundle = await loadBundle(bytes as Uint8Array);
    expect(bundle.runs.map((run) => run.runId)).toEqual([judged, `${judged}.judge1`]);
  });
});
