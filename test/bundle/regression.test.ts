/**
 * The bundles kept in bundles/ are regression tests: each is replayed by the agent code as it
 * is now and must come back identical, byte for byte. A change to the agent loop, the event
 * format, a provider's parsing or the governance that alters a recorded run fails here.
 *
 * To re-capture them after an intended change: RETRACE_UPDATE_BUNDLES=1 npx vitest run test/bundle/regression.test.ts
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { useMockServer } from "../providers/support.js";
import { useTempDirs } from "../e2e/harness.js";
import { BUNDLES, captureScenario, SCENARIOS } from "./scenarios.js";

const server = useMockServer();
const tempDir = useTempDirs();

if (process.env.RETRACE_UPDATE_BUNDLES === "1") {
  it("re-captures every regression bundle", async () => {
    mkdirSync(BUNDLES, { recursive: true });
    for (const scenario of SCENARIOS) await captureScenario(scenario, tempDir(), server, join(BUNDLES, `${scenario.name}.tgz`));
  });
}

const kept = readdirSync(BUNDLES).filter((name) => name.endsWith(".tgz")).sort();

describe("the regression bundles", () => {
  it("include a blocked and a failed tool, an approval over two turns, parallel calls with a sub-agent, and an OpenAI wire recording", () => {
    expect(kept).toEqual(expect.arrayContaining(SCENARIOS.map((scenario) => `${scenario.name}.tgz`)));
  });

  it.each(kept)("%s replays identical", async (name) => {
    const bundle = await loadBundle(join(BUNDLES, name));
    const verdict = await replayBundle(bundle, { env: {} });
    expect(verdict.status, JSON.stringify(verdict, null, 2)).toBe("identical");
    expect(verdict.sha256).toBe(bundle.logSha256);
  });
});
