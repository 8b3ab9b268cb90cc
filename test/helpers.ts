import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { AgentRun, type AgentDefinition } from "../src/agent/index.js";
import { createRunContext, manualClock, sequentialIds } from "../src/context/index.js";
import { MemoryRunStore } from "../src/store/index.js";
import { type RunStore, type ScriptInput } from "../src/contracts/index.js";
import { ScriptedModel } from "../src/providers/scripted/index.js";
import { defineTool, type AnyTool } from "../src/tools/index.js";

/** Folders `tempDir` made for the test file running in this worker (test/setup.ts removes them after it). */
const made: string[] = [];

/** A fresh folder in the temp directory, removed once the test file that made it is done. */
export function tempDir(prefix = "retrace-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const echoTool = defineTool({
  name: "echo",
  description: "Returns its text.",
  input: z.object({ text: z.string() }),
  idempotent: true,
  readOnly: true,
  run: ({ text }) => ({ echoed: text }),
});

export const boomTool = defineTool({
  name: "boom",
  description: "Always throws.",
  input: z.object({}),
  run: () => {
    throw new Error("the disk is on fire");
  },
});

/** A tool that resolves after `ms` on a real timer, to make calls finish out of order. */
export const sleepTool = defineTool({
  name: "sleep",
  description: "Waits, then returns its label.",
  input: z.object({ ms: z.number(), label: z.string() }),
  idempotent: true,
  run: ({ ms, label }) => new Promise((resolve) => setTimeout(() => resolve(label), ms)),
});

export function scriptedAgent(script: ScriptInput, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name: "test-agent",
    system: "You are a test agent.",
    maxSteps: 8,
    model: new ScriptedModel(script),
    tools: [echoTool, boomTool, sleepTool] as AnyTool[],
    maxRetries: 2,
    ...overrides,
  };
}

export function testContext(seed = 7) {
  return createRunContext({ clock: manualClock(Date.UTC(2026, 0, 1), 1), ids: sequentialIds(), seed });
}

export async function runOnce(script: ScriptInput, message: string, overrides: Partial<AgentDefinition> = {}, store: RunStore = new MemoryRunStore()) {
  const agent = scriptedAgent(script, overrides);
  const run = AgentRun.start(agent, { store, context: testContext() });
  const outcome = await run.send(message);
  return { run, outcome, events: run.log.events, store };
}
