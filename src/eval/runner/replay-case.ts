/**
 * A case that names a bundle (`replay: "bundles/incident-42.tgz"`): the incident is replayed
 * with the case's agent config — the agent as it is now — and the case's assertions run over
 * the replayed log. The replay serves the recorded answers; where the agent now asks
 * something else, the case's mock script (when it has one) answers from there on, and without
 * one the case fails with the divergence and what changed in the request.
 */
import { dirname, resolve } from "node:path";
import type { RunStore } from "../../contracts/index.js";
import type { EvalCase } from "../dsl/index.js";
import type { PreparedAgent } from "./setup.js";

export interface ReplayedCase {
  runId: string;
  errors: string[];
  notes: string[];
}

export async function replayCase(spec: EvalCase, prepared: PreparedAgent, store: RunStore, runId: string | undefined): Promise<ReplayedCase> {
  const replay = spec.replay as string;
  const file = resolve(spec.file ? dirname(spec.file) : process.cwd(), replay);
  // Bundles and the replayer load with the first case that replays one.
  const [{ loadBundle }, { replayBundle }] = await Promise.all([import("../../bundle/index.js"), import("../../replay/index.js")]);
  const bundle = await loadBundle(file);
  const config = typeof spec.config === "string" ? prepared.config.file : undefined;
  const verdict = await replayBundle(bundle, {
    env: {},
    store,
    ...(runId ? { runId } : {}),
    ...(config ? { config } : {}),
    ...(prepared.script ? { continue: { mock: prepared.script } } : {}),
  });
  if (verdict.status === "identical") return { runId: verdict.replayRunId, errors: [], notes: [`replayed ${replay}: identical`] };
  const where = `the replay of ${replay} diverged at run ${verdict.divergence.runId} seq ${verdict.divergence.seq}`;
  const request = verdict.request ? `; model request #${verdict.request.call} changed: ${verdict.request.lines.join("; ")}` : "";
  if (prepared.script) return { runId: verdict.replayRunId, errors: [], notes: [`${where}${request}; the mock script answered from there`] };
  return { runId: verdict.replayRunId, errors: [`${where}${request} (give the case a mock script to continue from the divergence)`], notes: [] };
}
