/**
 * `retrace run --record <dir>` then `--replay <dir>` through the real CLI entry: the same answer
 * offline with no key; a one-word change of the system prompt is a miss that shows the word;
 * `cassette:` in the config; unused entries reported; bad flags and bad files exit 2.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NetworkGuard } from "../../src/sandbox/index.js";
import { useMockServer } from "../providers/support.js";
import { captureIO, FAKE_KEYS, quickstartAs, retrace, storedRun, useTempDirs } from "../e2e/harness.js";
import { simulate, type Turn } from "../e2e/simulated-api.js";

const server = useMockServer();
const tempDir = useTempDirs();
const URL = "https://api.openai.com/v1/chat/completions";
const USAGE = { input: 10, output: 5, cacheRead: 0 };
const TURNS: Turn[] = [
  { kind: "tool_call", id: "call_1", name: "calculator", args: { expression: "2 + 2" }, usage: USAGE },
  { kind: "text", deltas: ["It is ", "4."], usage: USAGE },
];

async function offline<T>(body: () => Promise<T>): Promise<T> {
  server.resetHandlers();
  const guard = new NetworkGuard();
  guard.install();
  try {
    return await body();
  } finally {
    guard.uninstall();
  }
}

async function recordedProject(stream: boolean) {
  const dir = tempDir();
  const { configPath } = quickstartAs(dir, "openai");
  const api = simulate(server, "openai", { url: URL, turns: TURNS, model: "gpt-4o-mini" });
  const cassettes = join(dir, "cassettes");
  const recorded = await retrace(["run", configPath, "-m", "What is 2 + 2?", "--record", cassettes, "--db", join(dir, "a.db"), ...(stream ? ["--stream"] : [])], captureIO({ ...FAKE_KEYS }, dir));
  return { dir, configPath, api, cassettes, recorded };
}

describe("retrace run with a cassette", () => {
  it.each([false, true])("records, then replays with no key and no network (stream: %s)", async (stream) => {
    const { dir, configPath, api, cassettes, recorded } = await recordedProject(stream);
    expect(recorded.code).toBe(0);
    expect(recorded.io.out).toBe("It is 4.\n");
    expect(api.requests).toHaveLength(2);
    const file = join(cassettes, "agent.cassette.json");
    expect(readFileSync(file, "utf8")).not.toContain(FAKE_KEYS.OPENAI_API_KEY);
    // The run says which cassette its traffic went to (relative to the store), for bundles and readers.
    expect(storedRun(join(dir, "a.db")).events[0]).toMatchObject({ type: "run.started", source: { cassette: "cassettes/agent.cassette.json" } });

    const replayed = await offline(() => retrace(["run", configPath, "-m", "What is 2 + 2?", "--replay", cassettes, "--db", join(dir, "b.db"), ...(stream ? ["--stream"] : [])], captureIO({}, dir)));
    expect(replayed.io.err).toBe("");
    expect(replayed.code).toBe(0);
    expect(replayed.io.out).toBe(recorded.io.out);
    expect(api.requests).toHaveLength(2);
  });

  it("a one-word change of the system prompt fails the replay with that word in the diff", async () => {
    const { dir, configPath, cassettes } = await recordedProject(false);
    writeFileSync(configPath, readFileSync(configPath, "utf8").replace("You are a careful assistant", "You are a cautious assistant"));
    const replayed = await offline(() => retrace(["run", configPath, "-m", "What is 2 + 2?", "--replay", cassettes, "--db", join(dir, "b.db")], captureIO({}, dir)));
    expect(replayed.code).toBe(1);
    expect(replayed.io.err).toContain("cassette_miss");
    expect(replayed.io.err).toContain("entries[0]");
    expect(replayed.io.err).toContain('body.messages[0].content: "You are a [-careful-]{+cautious+} assistant. Use the calculator');
    expect(replayed.io.err).toContain("--record");
    // The run logged the miss as the failure of its first model call, once: it is not retried.
    expect(replayed.io.err.match(/is not recorded/g)).toHaveLength(1);
  });

  it("`cassette:` in the config replays by default; unused entries are reported; --cassette-mode overrides", async () => {
    const { dir, configPath, cassettes } = await recordedProject(false);
    writeFileSync(configPath, `${readFileSync(configPath, "utf8")}cassette: cassettes\n`);
    const replayed = await offline(() => retrace(["run", configPath, "-m", "What is 2 + 2?", "--db", join(dir, "b.db")], captureIO({}, dir)));
    expect(replayed.code).toBe(0);
    // A different question: its first request is a miss, and both recorded entries go unused.
    const other = await offline(() => retrace(["run", configPath, "-m", "What is 3 + 3?", "--db", join(dir, "c.db")], captureIO({}, dir)));
    expect(other.code).toBe(1);
    expect(other.io.err).toMatch(/\[-2-\]\{\+3\+\} \+ \[-2\?-\]\{\+3\?\+\}|What is \[-2 \+ 2\?-\]/);
    expect(other.io.err).toContain("2 recorded requests were not used");
    const live = await retrace(["run", configPath, "-m", "What is 2 + 2?", "--cassette-mode", "live", "--db", join(dir, "d.db")], captureIO({}, dir));
    expect(live.code).toBe(2); // live needs the key again
    expect(live.io.err).toContain("OPENAI_API_KEY");
    expect(cassettes).toBeTruthy();
  });

  it("refuses bad flags and bad cassettes with exit code 2, naming the file and entry", async () => {
    const { dir, configPath, cassettes } = await recordedProject(false);
    const io = () => captureIO({}, dir);
    expect((await retrace(["run", configPath, "-m", "x", "--record", cassettes, "--replay", cassettes], io())).code).toBe(2);
    const badMode = await retrace(["run", configPath, "-m", "x", "--replay", cassettes, "--cassette-mode", "sometimes"], io());
    expect(badMode.code).toBe(2);
    expect(badMode.io.err).toContain("--cassette-mode must be one of live, record, auto, replay, update");
    expect((await retrace(["run", configPath, "-m", "x", "--replay", cassettes, "--timing", "fast"], io())).code).toBe(2);
    const missing = await retrace(["run", configPath, "-m", "x", "--replay", join(dir, "nowhere")], io());
    expect(missing.code).toBe(2);
    expect(missing.io.err).toMatch(/nowhere.agent\.cassette\.json: no cassette to replay; record it with: retrace run/);
    const file = join(cassettes, "agent.cassette.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"status": 200', '"status": 99'));
    const damaged = await retrace(["run", configPath, "-m", "x", "--replay", cassettes], io());
    expect(damaged.code).toBe(2);
    expect(damaged.io.err).toMatch(/agent\.cassette\.json entry entries\[0\]: response\.status/);
  });
});

describe("retrace resume with the run's cassette", () => {
  it("reopens the cassette the run recorded to, so a run cut after its first tool result finishes offline from it", async () => {
    const { dir, cassettes, recorded } = await recordedProject(false);
    expect(recorded.code).toBe(0);
    const db = join(dir, "a.db");
    const { runId, events } = storedRun(db);
    // A process killed right after the tool's result: the rows after it were never written.
    const cut = events.find((event) => event.type === "tool.finished")?.seq as number;
    const { default: Database } = await import("better-sqlite3");
    const sqlite = new Database(db);
    sqlite.prepare("DELETE FROM events WHERE run_id = ? AND seq > ?").run(runId, cut);
    sqlite.close();

    const resumed = await offline(() => retrace(["resume", runId, "--db", db, "--cassette-mode", "replay"], captureIO({}, dir)));
    expect(resumed.io.err).toContain(`cassette ${join(cassettes, "agent.cassette.json")}: 1 recorded request was not used`);
    expect(resumed.code).toBe(0);
    expect(resumed.io.out).toBe("It is 4.\n");
    const after = storedRun(db).events;
    expect(after.filter((event) => event.type === "llm.finished")).toHaveLength(2);
    expect(after.at(-1)).toMatchObject({ type: "run.finished", status: "completed" });
  });
});
