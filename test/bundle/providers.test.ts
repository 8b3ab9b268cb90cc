/**
 * Done means: capture → replay is identical for runs recorded through the OpenAI, Anthropic
 * and OpenAI-compatible SDK paths against simulated endpoints, streaming and not, retries
 * included — at the wire level (the SDK parses the cassette's bytes again) and at the run
 * level (the logged responses) — and for a run whose retrieval tool indexed bundled documents.
 * This file uses the library: captureRun, loadBundle, replayBundle and its typed verdict.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRun } from "../../src/agent/index.js";
import { captureRun, loadBundle } from "../../src/bundle/index.js";
import { Cassette, cassetteFetch } from "../../src/cassette/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext, manualClock, sequentialIds } from "../../src/context/index.js";
import { replayBundle, type ReplayVerdict } from "../../src/replay/index.js";
import { NetworkGuard } from "../../src/sandbox/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { FAKE_KEYS, quickstartAs, useTempDirs, type ProviderName } from "../e2e/harness.js";
import { simulate, type Turn, type WireProvider } from "../e2e/simulated-api.js";
import { useMockServer } from "../providers/support.js";
import { cli } from "./scenarios.js";

const server = useMockServer();
const tempDir = useTempDirs();

const PROVIDERS: { provider: ProviderName; wire: WireProvider; url: string; llm: Record<string, string>; callId: string }[] = [
  { provider: "openai", wire: "openai", url: "https://api.openai.com/v1/chat/completions", llm: {}, callId: "call_b1" },
  { provider: "anthropic", wire: "anthropic", url: "https://api.anthropic.com/v1/messages", llm: {}, callId: "toolu_b1" },
  { provider: "openai-compatible", wire: "openai", url: "http://localhost:11434/v1/chat/completions", llm: { base_url: "http://localhost:11434/v1", model: "llama3.2" }, callId: "call_b1" },
];
const MATRIX = PROVIDERS.flatMap((spec) => [false, true].map((stream) => ({ ...spec, stream, mode: stream ? "streaming" : "non-streaming" })));
const usage = { input: 100, output: 10, cacheRead: 0 };

describe.each(MATRIX)("a bundle of a $provider run ($mode), retries included", (spec) => {
  it("replays identical at the wire level and at the run level, with no key and no network", async () => {
    const dir = tempDir();
    const { configPath } = quickstartAs(dir, spec.provider, { ...spec.llm, ...(spec.stream ? { stream: "true" } : {}) });
    const turns: Turn[] = [
      { kind: "error", status: 429, headers: { "retry-after": "2" }, message: "slow down" },
      { kind: "tool_call", id: spec.callId, name: "calculator", args: { expression: "2 + 2" }, usage },
      { kind: "error", status: 500, message: "the server broke" },
      { kind: "text", deltas: ["2 + 2 ", "= 4 ✓"], usage },
    ];
    simulate(server, spec.wire, { url: spec.url, turns, model: "served-model" });
    const cassetteFile = join(dir, "cassette.json");
    const recorder = Cassette.open(cassetteFile, { mode: "record", secrets: FAKE_KEYS, clock: () => 0 });
    const env = { ...FAKE_KEYS };
    const agent = await buildAgent(loadConfig(configPath, env), { env, fetch: cassetteFetch(recorder) });
    const store = new SqliteRunStore(join(dir, "runs.db"));
    let verdicts: ReplayVerdict[];
    try {
      // Retries wait on the run's clock: a manual one makes them instant.
      const context = createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), ids: sequentialIds(), seed: 3 });
      const run = AgentRun.start(agent, { store, context, source: { config: "agent.yaml" } });
      const outcome = await run.send("What is 2 + 2?");
      expect(outcome.output).toBe("2 + 2 = 4 ✓");
      recorder.close();
      const { bytes, manifest } = captureRun({ store, runId: run.runId, config: configPath, env, cassette: readFileSync(cassetteFile) });
      expect(manifest.cassette).toBe(true);
      expect(Object.keys(manifest.entries)).toContain("cassette.json");

      server.resetHandlers();
      const guard = new NetworkGuard();
      guard.install();
      try {
        const bundle = await loadBundle(bytes);
        verdicts = [await replayBundle(bundle, { env: {} }), await replayBundle(bundle, { env: {}, level: "run" })];
      } finally {
        guard.uninstall();
      }
      for (const verdict of verdicts) {
        expect(verdict.status, JSON.stringify(verdict, null, 2)).toBe("identical");
        expect(verdict.sha256).toBe(verdict.recordedSha256);
      }
      // run.started records the model's whole identity, which replay rebuilds the keys from.
      const started = store.read(run.runId, 1, 1)[0];
      expect(started).toMatchObject({ type: "run.started", model: { provider: spec.provider, ...(spec.llm.base_url ? { baseUrl: spec.llm.base_url, model: "llama3.2" } : {}) } });
      const failures = store.read(run.runId).filter((event) => event.type === "llm.failed");
      expect(failures.map((event) => (event.type === "llm.failed" ? event.error.code : ""))).toEqual(["provider_rate_limited", "provider_server"]);
    } finally {
      store.close();
    }
  });

  it("with a changed system prompt, the wire replay diverges at the first request with the word in the diff", async () => {
    const dir = tempDir();
    const { configPath, text } = quickstartAs(dir, spec.provider, { ...spec.llm, ...(spec.stream ? { stream: "true" } : {}) });
    simulate(server, spec.wire, { url: spec.url, turns: [{ kind: "text", deltas: ["Four."], usage }], model: "served-model" });
    const cassetteFile = join(dir, "cassette.json");
    const recorder = Cassette.open(cassetteFile, { mode: "record", secrets: FAKE_KEYS, clock: () => 0 });
    const agent = await buildAgent(loadConfig(configPath, FAKE_KEYS), { env: FAKE_KEYS, fetch: cassetteFetch(recorder) });
    const store = new SqliteRunStore(join(dir, "runs.db"));
    try {
      const run = AgentRun.start(agent, { store, context: createRunContext({ clock: manualClock(0, 1) }), source: { config: "agent.yaml" } });
      await run.send("What is 2 + 2?");
      recorder.close();
      const { bytes } = captureRun({ store, runId: run.runId, config: configPath, env: FAKE_KEYS, cassette: readFileSync(cassetteFile) });
      server.resetHandlers();
      writeFileSync(join(dir, "changed.yaml"), text.replace("careful assistant", "cheerful assistant"));
      const verdict = await replayBundle(await loadBundle(bytes), { config: join(dir, "changed.yaml") });
      expect(verdict.status).toBe("diverged");
      if (verdict.status !== "diverged") return;
      expect(verdict.divergence.expected?.type).toBe("llm.started");
      expect(verdict.request?.lines[0]).toContain("a [-careful-]{+cheerful+} assistant");
    } finally {
      store.close();
    }
  });
});

it("a run whose retrieval tool searched bundled documents replays identical", async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "docs"));
  writeFileSync(join(dir, "docs/refunds.md"), "# Refunds\n\nRefunds are paid within 14 days of the return arriving.\n");
  writeFileSync(join(dir, "docs/shipping.md"), "# Shipping\n\nOrders ship in two working days.\n");
  writeFileSync(join(dir, "agent.yaml"), "name: support\nsystem_prompt: Answer from the documents.\nllm:\n  provider: openai\ntools:\n  - search_docs\ndocuments:\n  - docs/refunds.md\n  - docs/shipping.md\n");
  writeFileSync(join(dir, "mock.yaml"), 'responses:\n  - tool_calls:\n      - name: search_docs\n        arguments: { query: "when are refunds paid" }\n  - text: "Within 14 days."\n');
  const run = await cli(dir, ["run", "agent.yaml", "--mock", "mock.yaml", "-m", "When do I get my refund?", "--json"]);
  expect(run.code, run.io.err).toBe(0);
  const { runId } = JSON.parse(run.io.out) as { runId: string };
  expect((await cli(dir, ["capture", runId, "-o", "r.tgz"])).code).toBe(0);
  const bundle = await loadBundle(join(dir, "r.tgz"));
  expect([...bundle.files.keys()]).toEqual(["files/agent.yaml", "files/docs/refunds.md", "files/docs/shipping.md", "files/mock.yaml"]);
  expect(bundle.root.events.some((event) => event.type === "retrieval")).toBe(true);
  expect((await replayBundle(bundle)).status).toBe("identical");
});
