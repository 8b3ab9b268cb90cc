/**
 * Capture → replay is identical for runs made through the CLI: a blocked and a failed tool, a
 * multi-turn run with an approval decided by `retrace approve`, parallel calls with a
 * sub-agent, and a run recorded through the OpenAI SDK's wire format (replayed through its
 * cassette, so the SDK parses the recorded bytes), all with no key and no network.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureRun, loadBundle } from "../../src/bundle/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { useMockServer } from "../providers/support.js";
import { useTempDirs } from "../e2e/harness.js";
import { captureScenario, cli, SCENARIOS } from "./scenarios.js";

const server = useMockServer();
const tempDir = useTempDirs();

describe.each(SCENARIOS)("a bundle of the $name run", (scenario) => {
  it("replays identical, prints identical with the log's sha256, and captures to the same bytes twice", async () => {
    const dir = tempDir();
    const { file, made } = await captureScenario(scenario, dir, server);
    const again = join(dir, "again.tgz");
    expect((await cli(dir, ["capture", made.runId, "-o", again, ...made.captureArgs], made.env)).code).toBe(0);
    expect(readFileSync(again).equals(readFileSync(file))).toBe(true);

    const bundle = await loadBundle(file);
    // No key and no handler now: the replay needs neither.
    server.resetHandlers();
    const verdict = await replayBundle(bundle, { env: {} });
    expect(verdict.status, JSON.stringify(verdict, null, 2)).toBe("identical");
    expect(verdict.sha256).toBe(bundle.logSha256);

    const printed = await cli(dir, ["replay", file]);
    expect(printed.code, printed.io.err + printed.io.out).toBe(0);
    expect(printed.io.out).toBe(`identical ${bundle.logSha256}\n`);
  });
});

it("answers from the logged responses, not from the bundled mock script (the mock only lends the model its identity)", async () => {
  const dir = tempDir();
  const { made } = await captureScenario(SCENARIOS[0] as (typeof SCENARIOS)[number], dir, server);
  // A bundle whose mock script would answer otherwise: only the recording can make this identical.
  writeFileSync(join(dir, "other.yaml"), 'responses:\n  - text: "something else entirely"\n');
  const store = new SqliteRunStore(join(dir, ".retrace/runs.db"));
  try {
    const { bytes } = captureRun({ store, runId: made.runId, config: join(dir, "agent.yaml"), mock: join(dir, "other.yaml") });
    expect((await replayBundle(await loadBundle(bytes))).status).toBe("identical");
  } finally {
    store.close();
  }
});
