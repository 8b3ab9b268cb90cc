/**
 * A run that was killed and resumed is captured with its resume markers (`run.resumed`, and
 * `llm.interrupted` when the kill fell during a model call). Its replay stops where the
 * recorded process died and resumes there, so the replayed log is the recorded one byte for
 * byte — at every point a kill can fall.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { captureRun, loadBundle } from "../../src/bundle/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext, manualClock } from "../../src/context/index.js";
import type { RunEvent } from "../../src/contracts/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { MemoryRunStore } from "../../src/store/index.js";
import { BoundaryStore } from "../agent/scenarios.js";
import { tempDir } from "../helpers.js";

const EPOCH = Date.UTC(2026, 0, 1);

describe("a bundle of a run resumed after a crash", () => {
  it("replays identical, whichever append the kill came after (a model call, a tool, between steps)", async () => {
    const dir = tempDir();
    const config = join(dir, "agent.yaml");
    const mock = join(dir, "mock.yaml");
    writeFileSync(config, "name: crashy\nmax_steps: 6\nllm:\n  provider: openai\ntools:\n  - calculator\n");
    writeFileSync(
      mock,
      'responses:\n  - tool_calls:\n      - name: calculator\n        arguments: { expression: "2 + 2" }\n  - tool_calls:\n      - name: calculator\n        arguments: { expression: "3 * 3" }\n  - text: Both sums are done.\n',
    );
    const agent = () => buildAgent(loadConfig(config, {}), { env: {}, mock });

    const original = new BoundaryStore();
    await AgentRun.start(await agent(), { store: original, context: createRunContext({ clock: manualClock(EPOCH, 1000) }), runId: "r" }).send("Two sums, please.");
    const lines = original.readRaw("r");
    const cuts = original.boundaries.filter((seq) => seq >= 2 && seq < lines.length);
    expect(cuts.length).toBeGreaterThan(4);

    const seen = new Set<string>();
    // `mark`: the CLI's resume logs run.resumed; a library resume need not (then only an interrupted model call shows).
    for (const [cut, mark] of cuts.flatMap((cut) => [[cut, true], [cut, false]] as const)) {
      const store = new MemoryRunStore();
      store.appendRaw(lines.slice(0, cut));
      const last = JSON.parse(lines[cut - 1] as string) as RunEvent;
      seen.add(last.type);
      const resumed = AgentRun.open(await agent(), "r", { store, context: createRunContext({ clock: manualClock(Date.parse(last.at) + 5000, 1000) }) });
      await resumed.resume({ mark });
      const log = store.read("r");
      expect(log.at(-1)?.type, `cut after seq ${cut}`).toBe("run.finished");
      expect(log.some((event) => event.type === "run.resumed")).toBe(mark);

      const bundle = await loadBundle(captureRun({ store, runId: "r", config, mock }).bytes);
      const verdict = await replayBundle(bundle, { env: {} });
      expect(verdict.status, `cut after seq ${cut} (${last.type}, mark ${mark}): ${JSON.stringify(verdict.status === "diverged" ? verdict.divergence : {}, null, 2)}`).toBe("identical");
      expect(verdict.sha256).toBe(bundle.logSha256);
    }
    // The kills fell during a model call, during a tool call and between them.
    expect([...seen]).toEqual(expect.arrayContaining(["llm.started", "tool.started", "tool.finished"]));
  });
});
