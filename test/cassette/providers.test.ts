/**
 * Done means, part 1: real SDK traffic of Retrace's providers — OpenAI, Anthropic and an
 * OpenAI-compatible server, streaming and not, with a tool call — recorded through the fetch
 * they take, against msw-simulated endpoints, then replayed with no key, no handler and the
 * network guard on: the same parsed answers and the same log, byte for byte (sha256).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { sha256 } from "../../src/canonical/index.js";
import { Cassette, cassetteFetch, readCassette, type StoredChunk } from "../../src/cassette/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import { NetworkGuard } from "../../src/sandbox/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { useMockServer } from "../providers/support.js";
import { FAKE_KEYS, quickstartAs, useTempDirs, type ProviderName } from "../e2e/harness.js";
import { simulate, type Turn, type WireProvider } from "../e2e/simulated-api.js";

const server = useMockServer();
const tempDir = useTempDirs();

interface Spec {
  provider: ProviderName;
  wire: WireProvider;
  url: string;
  llm: Record<string, string>;
  callId: string;
}

const PROVIDERS: Spec[] = [
  { provider: "openai", wire: "openai", url: "https://api.openai.com/v1/chat/completions", llm: {}, callId: "call_rec1" },
  { provider: "anthropic", wire: "anthropic", url: "https://api.anthropic.com/v1/messages", llm: {}, callId: "toolu_rec1" },
  { provider: "openai-compatible", wire: "openai", url: "http://localhost:11434/v1/chat/completions", llm: { base_url: "http://localhost:11434/v1", model: "llama3.2" }, callId: "call_rec1" },
];

const USAGE = { input: 100, output: 10, cacheRead: 0 };
const turns = (spec: Spec): Turn[] => [
  { kind: "error", status: 429, headers: { "retry-after": "2" }, message: "slow down" },
  { kind: "tool_call", id: spec.callId, name: "calculator", args: { expression: "2 + 2" }, usage: USAGE },
  { kind: "error", status: 500, message: "the server broke" },
  { kind: "text", deltas: ["2 + 2 ", "= 4 ✓"], usage: USAGE },
];

interface Recorded {
  sha: string;
  raw: string[];
  output: string;
}

async function runOnce(configPath: string, env: Record<string, string>, stream: boolean, cassette: Cassette, db: string, keyless: boolean): Promise<Recorded> {
  const agent = await buildAgent(loadConfig(configPath, env), { env, stream, fetch: cassetteFetch(cassette), keyless });
  const store = new SqliteRunStore(db);
  try {
    // Retries wait on the run's clock: a manual one makes them instant and the log reproducible.
    const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), ids: sequentialIds(), seed: 0 });
    const run = AgentRun.start({ ...agent, retryBaseMs: 1 }, { store, context });
    const outcome = await run.send("What is 2 + 2?");
    const raw = store.readRaw(outcome.runId);
    return { sha: sha256(raw.join("\n")), raw, output: outcome.output };
  } finally {
    store.close();
  }
}

const bytesOf = (chunk: StoredChunk): Uint8Array => new Uint8Array("text" in chunk ? Buffer.from(chunk.text, "utf8") : Buffer.from(chunk.base64, "base64"));

const MATRIX = PROVIDERS.flatMap((spec) => [false, true].map((stream) => ({ ...spec, stream, mode: stream ? "streaming" : "non-streaming" })));

describe.each(MATRIX)("a cassette of $provider ($mode) through the providers' fetch", (spec) => {
  let recorded: Recorded;
  let replayed: Recorded;
  let file: string;
  let requestsWhileReplaying = -1;
  let served: Uint8Array[][] = [];

  beforeAll(async () => {
    const dir = tempDir();
    const { configPath } = quickstartAs(dir, spec.provider, spec.llm);
    file = join(dir, "cassette.json");
    const api = simulate(server, spec.wire, { url: spec.url, turns: turns(spec), model: "served-model" });
    const recorder = Cassette.open(file, { mode: "record", secrets: FAKE_KEYS, clock: () => 0 });
    recorded = await runOnce(configPath, { ...FAKE_KEYS }, spec.stream, recorder, join(dir, "record.db"), false);
    recorder.close();
    const before = api.requests.length;
    served = api.streamedChunks;

    // Replay: no key in the environment, no handler for any request, and the guard on every other way out.
    server.resetHandlers();
    const guard = new NetworkGuard();
    guard.install();
    try {
      const player = Cassette.open(file, { mode: "replay" });
      replayed = await runOnce(configPath, {}, spec.stream, player, join(dir, "replay.db"), true);
      expect(player.close().unused).toEqual([]);
    } finally {
      guard.uninstall();
    }
    requestsWhileReplaying = api.requests.length - before;
  });

  it("recorded the 429, the tool call, the 500 and the answer, and completed", () => {
    expect(recorded.output).toBe("2 + 2 = 4 ✓");
    const entries = readCassette(file)!.entries;
    expect(entries.map((entry) => entry.response.status)).toEqual([429, 200, 500, 200]);
    expect(entries[0]!.response.headers["retry-after"]).toBe("2");
    if (spec.stream) {
      // Each chunk as it went over the wire: boundaries inside JSON strings and inside characters kept.
      const stored = [entries[1]!, entries[3]!].map((entry) => (entry.response.body as { chunks: StoredChunk[] }).chunks.map(bytesOf));
      expect(stored).toEqual(served.map((chunks) => chunks.map((chunk) => new Uint8Array(chunk))));
      expect(JSON.stringify(entries[3]!.response.body)).toContain('"base64"');
    }
    const text = readFileSync(file, "utf8");
    for (const key of Object.values(FAKE_KEYS)) expect(text).not.toContain(key);
    expect(text).not.toMatch(/authorization|x-api-key|stainless|user-agent/i);
  });

  it("replays offline to the same log, byte for byte, retries included", () => {
    expect(requestsWhileReplaying).toBe(0);
    expect(replayed.output).toBe(recorded.output);
    expect(replayed.raw).toEqual(recorded.raw);
    expect(replayed.sha).toBe(recorded.sha);
    const failed = recorded.raw.map((line) => JSON.parse(line) as { type: string; error?: { code: string } }).filter((event) => event.type === "llm.failed");
    expect(failed.map((event) => event.error?.code)).toEqual(["provider_rate_limited", "provider_server"]);
  });
});
