import { resolve } from "node:path";
import { agentDigest, isSubAgent, subAgentDefinition, type AgentDefinition } from "../agent/index.js";
import { buildAgent, loadConfig, type BuildOptions } from "../config/index.js";
import { RunError, UsageError } from "../errors/index.js";
import type { EventOf, RunStore } from "../contracts/index.js";
import type { Cassette, CassetteMode } from "../cassette/index.js";
import { cassetteSecrets } from "./cassette.js";
import { resolveRecorded } from "./recorded-paths.js";

export interface RebuiltAgent {
  agent: AgentDefinition;
  started: EventOf<"run.started">;
  /** The agent's digest differs from the one the run started with. */
  changed: boolean;
  /** The cassette the run's model traffic went through, reopened for the rest of the run; the caller closes it. */
  cassette?: Cassette;
}

function startOf(store: RunStore & { path?: string }, runId: string): EventOf<"run.started"> {
  const first = store.read(runId, 1, 1)[0];
  if (!first) throw new RunError("run_not_found", `no such run in ${store.path ?? "this store"}`, { runId });
  if (first.type !== "run.started") throw new RunError("run_corrupt", `the run's first event is ${first.type}, not run.started`, { runId, seq: 1 });
  return first;
}

/**
 * Rebuilds the agent a run was started with: from the config (and mock) the CLI recorded, or
 * given explicitly; a child run's agent is found through its parent's sub-agent tool.
 */
export async function agentForRun(
  store: RunStore & { path: string },
  runId: string,
  options: { cwd: string; config?: string; mock?: string; build: BuildOptions; cassetteMode?: CassetteMode },
): Promise<RebuiltAgent> {
  const started = startOf(store, runId);
  let agent: AgentDefinition;
  if (started.parent && options.config === undefined) {
    const parent = await agentForRun(store, started.parent.runId, options);
    const request = store.read(started.parent.runId).find((event) => event.type === "tool.requested" && event.callId === started.parent?.callId);
    const tool = request?.type === "tool.requested" ? parent.agent.tools.find((candidate) => candidate.name === request.name) : undefined;
    if (!tool || !isSubAgent(tool)) {
      throw new RunError("run_source_unknown", `cannot find the sub-agent that started this run in its parent ${started.parent.runId}`, { runId });
    }
    agent = subAgentDefinition(tool);
  } else {
    // Given on the command line: relative to the cwd. Recorded: relative to the store.
    const recorded = (what: "config" | "mock") => {
      const given = options[what];
      if (given !== undefined) return resolve(options.cwd, given);
      const path = started.source?.[what];
      return path === undefined ? undefined : resolveRecorded(store.path, options.cwd, path, what, runId);
    };
    const config = recorded("config");
    if (config === undefined) throw new UsageError(`run ${runId} does not record its config file; pass --config <agent.yaml>`);
    const mock = recorded("mock");
    const loaded = loadConfig(config, options.build.env);
    const cassette = mock === undefined ? await reopenCassette(store.path, options, started, runId, loaded) : undefined;
    agent = await buildAgent(loaded, {
      ...options.build,
      ...(mock ? { mock } : {}),
      ...(cassette ? { fetch: (await import("../cassette/index.js")).cassetteFetch(cassette), keyless: cassette.mode === "replay" } : {}),
    });
    return { agent, started, changed: agentDigest(agent) !== started.agent.digest, ...(cassette ? { cassette } : {}) };
  }
  return { agent, started, changed: agentDigest(agent) !== started.agent.digest };
}

/**
 * A run whose model traffic went through a cassette continues through it (default mode auto:
 * what was recorded is served, the rest is recorded), so a run recorded or replayed from a
 * cassette that crashed resumes against the same exchanges. `--cassette-mode` picks another mode.
 */
async function reopenCassette(
  storePath: string,
  options: { cwd: string; cassetteMode?: CassetteMode; build: BuildOptions },
  started: EventOf<"run.started">,
  runId: string,
  loaded: ReturnType<typeof loadConfig>,
): Promise<Cassette | undefined> {
  const recordedPath = started.source?.cassette;
  const mode = options.cassetteMode ?? "auto";
  if (recordedPath === undefined || mode === "live") return undefined;
  const file = resolveRecorded(storePath, options.cwd, recordedPath, "cassette", runId);
  const { Cassette } = await import("../cassette/index.js");
  return Cassette.open(file, { mode, secrets: cassetteSecrets(loaded, options.build.env ?? {}) });
}
