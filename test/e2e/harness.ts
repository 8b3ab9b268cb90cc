/**
 * Running the real CLI in-process: a CliIO that captures every write, a copy of the quickstart
 * agent with only its provider changed, and the events a run stored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll } from "vitest";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { SqliteRunStore } from "../../src/store/index.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const QUICKSTART = join(ROOT, "examples/hello/agent.yaml");

/** Fake keys: long and distinctive, so that finding one anywhere is unambiguous. */
export const FAKE_KEYS = {
  OPENAI_API_KEY: "sk-e2e-openai-FAKE-7c1e9a3f5b2d4068aa",
  ANTHROPIC_API_KEY: "sk-ant-e2e-FAKE-8d1c6b0a2e4f7391bb",
} as const;

export interface CapturedIO extends CliIO {
  readonly stdoutWrites: string[];
  readonly stderrWrites: string[];
  readonly out: string;
  readonly err: string;
}

export function captureIO(env: Record<string, string | undefined>, cwd: string): CapturedIO {
  const stdoutWrites: string[] = [];
  const stderrWrites: string[] = [];
  return {
    stdout: (text) => void stdoutWrites.push(text),
    stderr: (text) => void stderrWrites.push(text),
    env,
    cwd,
    isTTY: false,
    stdoutWrites,
    stderrWrites,
    get out() {
      return stdoutWrites.join("");
    },
    get err() {
      return stderrWrites.join("");
    },
  };
}

/** A fresh folder per call, removed when the test file ends. */
export function useTempDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-e2e-"));
    dirs.push(dir);
    return dir;
  };
}

export type ProviderName = "openai" | "anthropic" | "openai-compatible";

/**
 * The quickstart agent copied into `dir`, with `llm.provider` set and any `llm` lines added
 * (base_url and model for a compatible server). Returns the config path and the text, so a
 * test can show exactly what changed.
 */
export function quickstartAs(dir: string, provider: ProviderName, llmExtra: Record<string, string | number> = {}): { configPath: string; text: string } {
  const original = readFileSync(QUICKSTART, "utf8");
  const providerLine = /^ {2}provider: openai$/m;
  if (!providerLine.test(original)) throw new Error(`${QUICKSTART} no longer has "  provider: openai" under llm`);
  const extra = Object.entries(llmExtra).map(([key, value]) => `\n  ${key}: ${value}`).join("");
  const text = original.replace(providerLine, `  provider: ${provider}${extra}`);
  const configPath = join(dir, "agent.yaml");
  writeFileSync(configPath, text);
  return { configPath, text };
}

/** The lines of `changed` that are not lines of `original` (a one-way line diff). */
export function addedLines(original: string, changed: string): string[] {
  const before = new Set(original.split("\n"));
  return changed.split("\n").filter((line) => !before.has(line));
}

export interface CliRun {
  code: number;
  io: CapturedIO;
}

export async function retrace(argv: string[], io: CapturedIO): Promise<CliRun> {
  const code = await main(argv, io);
  return { code, io };
}

export interface StoredRun {
  runId: string;
  /** The stored bytes of every event (canonical JSON), as `trace --json` prints them. */
  raw: string[];
  events: { type: string; [field: string]: unknown }[];
}

/** The single run in a fresh store, read back raw. */
export function storedRun(db: string): StoredRun {
  const store = new SqliteRunStore(db);
  try {
    const runs = store.list();
    if (runs.length !== 1) throw new Error(`expected exactly one run in ${db}, found ${runs.length}`);
    const runId = runs[0]!.runId;
    const raw = store.readRaw(runId);
    return { runId, raw, events: raw.map((line) => JSON.parse(line) as StoredRun["events"][number]) };
  } finally {
    store.close();
  }
}
