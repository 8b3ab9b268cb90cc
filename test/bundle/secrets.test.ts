/**
 * No key enters a bundle: fake keys in the environment and inside the conversation (the user
 * pastes one, a file the agent reads holds one), a run through a simulated provider recorded
 * through a cassette, captured; then the bundle's decompressed bytes are searched.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/index.js";
import { replayBundle } from "../../src/replay/index.js";
import { useMockServer } from "../providers/support.js";
import { FAKE_KEYS, quickstartAs, useTempDirs } from "../e2e/harness.js";
import { simulate } from "../e2e/simulated-api.js";
import { cli } from "./scenarios.js";

const server = useMockServer();
const tempDir = useTempDirs();

const PASTED = "sk-proj-PASTEDbyTHEuser0123456789abcdef";
const IN_FILE = "ghp_FILEtokenFAKE0123456789abcdefABCD";

it("finds no key, raw or encoded, in the decompressed bundle of a run that saw keys everywhere", async () => {
  const dir = tempDir();
  const { configPath, text } = quickstartAs(dir, "openai");
  // The agent may read the workspace, where a file holds a token, and the key is in the config too.
  writeFileSync(configPath, text.replace("tools:\n  - calculator", "tools:\n  - calculator\n  - read_file\nworkspace: ./workspace") + "\n# key: " + FAKE_KEYS.OPENAI_API_KEY + "\n");
  mkdirSync(join(dir, "workspace"));
  writeFileSync(join(dir, "workspace/.env"), `GITHUB_TOKEN=${IN_FILE}\nOPENAI_API_KEY=${FAKE_KEYS.OPENAI_API_KEY}\n`);
  const usage = { input: 10, output: 5, cacheRead: 0 };
  simulate(server, "openai", {
    url: "https://api.openai.com/v1/chat/completions",
    model: "gpt-4o-mini",
    turns: [
      { kind: "tool_call", id: "call_env", name: "read_file", args: { path: ".env" }, usage },
      { kind: "text", deltas: ["I read it."], usage },
    ],
  });
  const env = { ...FAKE_KEYS };
  const run = await cli(dir, ["run", "agent.yaml", "-m", `my key is ${PASTED}, and the other is ${FAKE_KEYS.ANTHROPIC_API_KEY}; read .env`, "--record", "cassettes", "--json"], env);
  expect(run.code, run.io.err).toBe(0);
  const { runId } = JSON.parse(run.io.out) as { runId: string };
  const out = join(dir, "run.tgz");
  const captured = await cli(dir, ["capture", runId, "-o", out, "--cassette", "cassettes/agent.cassette.json"], env);
  expect(captured.code, captured.io.err).toBe(0);

  const bytes = gunzipSync(readFileSync(out)).toString("latin1");
  for (const secret of [FAKE_KEYS.OPENAI_API_KEY, FAKE_KEYS.ANTHROPIC_API_KEY, PASTED, IN_FILE]) {
    for (const spelling of [secret, Buffer.from(secret).toString("base64"), JSON.stringify(secret).slice(1, -1)]) expect(bytes).not.toContain(spelling);
    // A fragment long enough to be the key's (the SDK might split it): not there either.
    expect(bytes).not.toContain(secret.slice(0, 20));
  }
  expect(bytes).toContain("[redacted]");

  // And the bundle still replays, with no key at all.
  server.resetHandlers();
  expect((await replayBundle(await loadBundle(out), { env: {} })).status).toBe("identical");
});
